"""``nl.load`` enters ``dma_copy`` after the dst checks (its dst is the tile it just made) and dma_copy
keeps one plan per (chip, dst sig, src sig, start partitions): the same values, events and errors as
allocating the tile and calling ``nisa.dma_copy`` in full, and a changed field of the plan key misses it."""
import warnings

import numpy as np
import pytest

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import NpuSimError
from npusim.nki import isa as _isa
from npusim.nki.runtime import run_context


def _events(run):
    return [(e.engine, e.name, e.start_ns, e.end_ns, e.nbytes, e.elements) for e in run.trace.events]


def _outcome(f):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            t = f()
            value = None if t is None else t.numpy()
        except NpuSimError as e:
            value = ("error", type(e).__name__, str(e).replace("nl.load", "?"))
    return value, [str(w.message) for w in caught]


def _sources():
    """(name, maker) of srcs for a load: HBM views of several geometries, on-chip tiles, bad ones."""
    h = nl.ndarray((2, 256, 16), nl.float32, buffer=nl.shared_hbm)
    h.write(np.arange(2 * 256 * 16, dtype=np.float32).reshape(2, 256, 16))
    unwritten = nl.ndarray((2, 256, 16), nl.float32, buffer=nl.shared_hbm)    # reads poison, with a warning
    s = nl.ndarray((128, 16), nl.float32)
    s.write(np.full((128, 16), 3, np.float32))
    p = nl.ndarray((128, 16), nl.float32, buffer=nl.psum)
    p.write(np.zeros((128, 16), np.float32))
    return [("hbm", lambda: h[1, 0:128, 0:16]), ("hbm rows", lambda: h[0, 3:4, 0:16]),
            ("hbm column", lambda: h[1, 0:128, 5:6]), ("hbm 3-d", lambda: h[:, 0:64, :]),
            ("sbuf", lambda: s), ("sbuf part", lambda: s[64:96, 0:8]), ("psum", lambda: p),
            ("unwritten", lambda: unwritten[0, 0:128, :]), ("wide", lambda: h[0, 0:256, 0:16])]


@pytest.mark.parametrize("dtype", [None, nl.bfloat16])
def test_load_equals_allocate_then_dma_copy(dtype):
    with run_context("trn2") as a_run:
        a = [(n, _outcome(lambda: nl.load(f(), dtype=dtype))) for n, f in _sources()]
        a_events = _events(a_run)

    def by_hand(src):
        t = nl.ndarray(src.shape, dtype or src.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=src)
        return t
    with run_context("trn2") as b_run:
        b = [(n, _outcome(lambda: by_hand(f()))) for n, f in _sources()]
        b_events = _events(b_run)
    for (name, x), (_, y) in zip(a, b):
        vx, vy = x[0], y[0]
        if isinstance(vx, tuple):
            assert vx == vy, name
        else:
            assert (vx.dtype, vx.shape, vx.tobytes()) == (vy.dtype, vy.shape, vy.tobytes()), name   # (poison NaNs)
        assert [m.replace("nl.load", "?") for m in x[1]] == [m.replace("nl.load", "?") for m in y[1]], name
    assert a_events == b_events
    assert any(isinstance(x[0], tuple) for _, x in a)          # (the bad sources did raise)


def test_a_changed_start_partition_or_sig_misses_the_dma_plan():
    with run_context("trn2"):
        h = nl.ndarray((256, 16), nl.float32, buffer=nl.shared_hbm)
        h.write(np.ones((256, 16), np.float32))
        s = nl.ndarray((128, 16), nl.float32)
        _isa._DMA_PLANS.clear()
        nisa.dma_copy(dst=s[0:8, :], src=h[0:8, :])
        plan = dict(_isa._DMA_PLANS)
        assert len(plan) == 1 and [(k[3], v.groups, v.elements) for k, v in plan.items()] == [(0, (0,), 128)]
        before = 0
        nisa.dma_copy(dst=s[0:8, :], src=h[8:16, :])            # the same key: HBM start partitions are 0
        assert len(_isa._DMA_PLANS) == before + 1
        nisa.dma_copy(dst=s[8:16, :], src=h[0:8, :])            # another start partition: other engines
        nisa.dma_copy(dst=s[0:8, 0:8], src=h[0:8, 0:8])          # another geometry
        assert len(_isa._DMA_PLANS) == before + 3
        new = [(k[3], v.groups, v.elements) for k, v in _isa._DMA_PLANS.items() if k not in plan]
        assert sorted(new) == [(0, (0,), 64), (8, (1,), 128)]     # (8 partitions per DMA engine)
