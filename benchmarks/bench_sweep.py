"""npusim.sweep: a 32-config tile sweep of the NKI tiled matmul (examples/sweep/tune_nki_matmul.py) with
one worker process and with every core, and what one configuration costs to route through Dask.

The "numpy" column of these rows holds the baseline each row compares with (named in the case): the
1-worker sweep for the all-cores row (ratio ~ 1 / cores is a perfect speed-up), the same no-op configs
run inline for the Dask and local-pool overhead rows (per call = per configuration)."""
from __future__ import annotations

import atexit
import os
import sys
import time

from harness import Case

HERE = os.path.dirname(os.path.abspath(__file__))
# One BLAS thread per worker, in both rows: otherwise the 1-worker baseline's numpy matmuls already use
# every core and the comparison measures BLAS, not the pool (workers start from a forkserver and read this).
os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = "1"
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

import npusim  # noqa: E402
from npusim.tune import KernelFile  # noqa: E402

MATMUL = KernelFile(os.path.join(os.path.dirname(HERE), "examples", "sweep", "tune_nki_matmul.py"), "run")
SPACE32 = {"tile_m": [32, 64, 128, 256], "tile_n": [128, 256, 512, 1024], "tile_k": [64, 128]}
NOOP32 = {"i": list(range(32))}
noop = dict          # run(**config) that simulates nothing; a builtin, so it pickles from any module


def sleepy(i):
    """A configuration that takes 20 ms of wall time without using a core: shows the executor's overlap
    even when a shared machine's cores are busy with other work."""
    time.sleep(0.02)


SLEEPY = KernelFile(os.path.abspath(__file__), "sleepy")   # workers import this file by path


def _sweep(run, space, executor):
    return lambda: npusim.sweep(run, space, executor=executor, progress=False)


def cases() -> list[Case]:
    cores = os.cpu_count() or 1
    out = [
        Case("sweep: NKI tiled matmul, 32 tile configs, 1 worker process", _sweep(MATMUL, SPACE32, 1),
             per=32, target="the baseline of the next row", repeats=3),
        Case(f"sweep: the same 32 configs on all {cores} cores (numpy column: the 1-worker sweep)",
             _sweep(MATMUL, SPACE32, None), numpy=_sweep(MATMUL, SPACE32, 1), per=32,
             target=f"ratio near 1/{cores} (speed-up near the core count)", repeats=3),
        Case(f"sweep: 32 configs that each sleep 20 ms, all {cores} cores (numpy column: 1 worker)",
             _sweep(SLEEPY, NOOP32, None), numpy=_sweep(SLEEPY, NOOP32, 1), per=32,
             target=f"ratio near 1/{cores}: the pool overlaps configs", repeats=3),
        Case(f"sweep: 32 no-op configs, local pool of {cores} (numpy column: inline)",
             _sweep(noop, NOOP32, None), numpy=_sweep(noop, NOOP32, "inline"), per=32,
             target="per-config overhead of the process pool", repeats=3),
    ]
    try:
        import distributed
    except ImportError:
        return out
    cluster = distributed.LocalCluster(n_workers=cores, threads_per_worker=1, dashboard_address=None,
                                       processes=True, silence_logs=50)
    client = distributed.Client(cluster)
    atexit.register(cluster.close)
    atexit.register(client.close)
    out.append(Case(f"sweep: 32 no-op configs on a Dask LocalCluster of {cores} processes "
                    "(numpy column: inline)", _sweep(noop, NOOP32, client), numpy=_sweep(noop, NOOP32, "inline"),
                    per=32, target="per-config overhead of the Dask route", repeats=3))
    return out
