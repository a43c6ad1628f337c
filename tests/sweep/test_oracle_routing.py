"""The okk differential sweep (C-model vs npusim) runs its batches through npusim.sweep's executor layer.
The C-model is replaced by a fake ``run_both`` here, so this runs without Sophgo's libraries: every
executor must give the outcome of the batches merged in order (the merge rules of the serial loop)."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from npusim.okk.oracle import differential
from npusim.tune import executors
from npusim.okk.oracle.cmodel import Result
from npusim.okk.oracle.programs import Builder


def fake_batch(k: int) -> Builder:
    b = Builder()
    b.call("okk_initialize")
    b.call("okk_fake", k)
    b.call("okk_poll")
    b.labels.append(f"[batch {k} case 0] dst NPUs 0-3")
    return b


def fake_run_both(steps):
    """Batch 1: a read differs and the totals differ; 2: only the totals; 3: npusim raises;
    4: the C-model aborts; 0: identical."""
    k = steps[1][2][0]
    ref = Result([b"\x00\x00\x80\x3f"], [], [10], 0.0, "abort in the C-model" if k == 4 else None)
    got = Result([b"\x00\x00\x00\x40" if k == 1 else b"\x00\x00\x80\x3f"], [], [11 if k in (1, 2) else 10], 0.0)
    err = "ConstraintError: okk_fake: parameter 'k' breaks the rule \"k != 3\" (got 3)" if k == 3 else None
    return ref, (None if err else got), err


EXPECTED = {
    "dst": ["[batch 1 case 0] dst NPUs 0-3: 1 of 1 elements differ; first at element 0: "
            f"cmodel {np.float32(1.0)!r} (0x3f800000) vs npusim {np.float32(2.0)!r} (0x40000000)"],
    "cycles": ["total cycles: cmodel [10] vs npusim [11]"],     # batch 2's is dropped: already a cycle problem
    "error": ["batch 3: npusim raised ConstraintError: okk_fake: parameter 'k' breaks the rule \"k != 3\" (got 3)"],
    "cmodel": ["batch 4: the C-model aborted (the generator made an invalid case): abort in the C-model"],
}


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(differential, "run_both", fake_run_both)
    # process workers see the fake only when forked; a threaded process (an xdist worker) would get a
    # forkserver pool (executors._start_method), whose workers import the real run_both
    monkeypatch.setattr(executors, "_os_threads", lambda: 1)


def _run(executor):
    out = differential.run_batches(fake_batch, 5, executor)
    return out.cases, out.by_aspect


def test_inline_merges_like_the_serial_loop(fake):
    assert _run("inline") == (5, EXPECTED)


def test_thread_and_process_pools_give_the_same_outcome(fake):
    with ThreadPoolExecutor(2) as threads:
        assert _run(threads) == (5, EXPECTED)
    assert _run(2) == (5, EXPECTED)          # forked workers inherit the fake


def test_dask_gives_the_same_outcome(fake):
    distributed = pytest.importorskip("distributed", reason="dask.distributed absent (pip install npusim[dask])")
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        assert _run(client) == (5, EXPECTED)


def test_executor_from_the_environment(monkeypatch, fake):
    monkeypatch.delenv(differential.EXECUTOR_ENV, raising=False)
    assert differential.oracle_executor() == "inline"
    monkeypatch.setenv(differential.EXECUTOR_ENV, "2")
    assert differential.oracle_executor() == 2
    assert _run(None) == (5, EXPECTED)
    monkeypatch.setenv(differential.EXECUTOR_ENV, "tcp://10.0.0.1:8786")
    assert differential.oracle_executor() == "tcp://10.0.0.1:8786"


def test_part_two_batches_pickle_and_build_the_seeded_batch():
    import pickle

    from npusim.okk.oracle.part_two_sweep import FX, Batches, build_batch
    batches = Batches("sweep", FX + "add", (3, 2))
    again = pickle.loads(pickle.dumps(batches))
    want = build_batch(differential.seeded("sweep", FX + "add", 1), FX + "add", 2, "batch 1")
    got = again(1)
    assert got.steps == want.steps and got.labels == want.labels
    assert sum(1 for s in got.steps if s[0] == "call") - 2 == 2


def test_pool_start_method_follows_the_thread_count(monkeypatch):
    """fork only while this process is single-threaded (a fork with another thread holding a lock can hang
    the child: Sophgo's C-model keeps worker threads); otherwise a forkserver that preloads kernel files."""
    monkeypatch.setattr(executors, "_os_threads", lambda: 1)
    assert executors._start_method()["mp_context"].get_start_method() == "fork"
    monkeypatch.setattr(executors, "_os_threads", lambda: 3)
    method = executors._start_method()
    assert method["mp_context"].get_start_method() == "forkserver" and method["initializer"] is executors._preload
