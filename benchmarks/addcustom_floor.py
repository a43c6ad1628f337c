"""The floor under any Python simulation of AddCustom: the kernel's own Python against a stub API.

examples/ascendc/add_custom.py is run line for line (8 blocks x 16 tiles of 128 halves: 128 Adds, 384
DataCopys, ~1500 queue calls) with its ``asc`` module swapped for stubs whose every call returns at once.
That time is what the kernel's Python control flow costs before a single byte is simulated; the issue's
"within 2x of numpy" for this kernel would need the whole simulation to fit in 2x numpy's ``x + y``.
Also printed: numpy running the same 128 tiles (per-tile copies and adds in a Python loop), and the real
simulator. Best of N runs in CPU time (process_time), so other load on the machine matters less.

Run: PYTHONPATH=src python benchmarks/addcustom_floor.py
"""
from __future__ import annotations

import importlib.util
import os
import statistics
import time
import types

import numpy as np

from npusim import ascendc as asc

HERE = os.path.dirname(os.path.abspath(__file__))
BLOCKS = 8


class _Addr:
    """GM_ADDR stub: cast and + return itself."""
    def cast(self, dtype):
        return self

    def __add__(self, n):
        return self


class _Any:
    """Every stub object: any method call returns immediately (with a stub tensor where one is expected)."""
    def __init__(self, *a, **k):
        pass

    def SetGlobalBuffer(self, *a):
        pass

    def __getitem__(self, i):
        return self

    def InitBuffer(self, *a):
        pass

    def AllocTensor(self, dtype):
        return self

    def EnQue(self, t):
        return True

    def DeQue(self, dtype=None):
        return self

    def FreeTensor(self, t):
        pass


def _nothing(*a, **k):
    pass


def stub_api() -> types.SimpleNamespace:
    block = [0]
    ns = types.SimpleNamespace(
        GetBlockIdx=lambda: block[0], TPipe=_Any, GlobalTensor=_Any, TQue=_Any, TPosition=asc.TPosition,
        half=asc.half, DataCopy=_nothing, Add=_nothing)
    ns.block = block
    return ns


def load_kernel():
    spec = importlib.util.spec_from_file_location(
        "asc_add_custom_floor", os.path.join(HERE, "..", "examples", "ascendc", "add_custom.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def numpy_tiles(x, y, z, tile: int = 128):
    """numpy doing AddCustom's structure: per block, per tile, copy x and y in, add, copy z out."""
    xf, yf, zf = x.reshape(-1), y.reshape(-1), z.reshape(-1)
    per_block = xf.size // BLOCKS
    for b in range(BLOCKS):
        for i in range(per_block // tile):
            lo = b * per_block + i * tile
            xl = xf[lo:lo + tile].copy()
            yl = yf[lo:lo + tile].copy()
            zl = xl + yl
            zf[lo:lo + tile] = zl


def best_and_median(fn, n: int) -> tuple[float, float]:
    fn()
    cpu, wall = [], []
    for _ in range(n):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return min(cpu), statistics.median(wall)


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.uniform(-100, 100, [8, 2048]).astype(np.float16)
    y = rng.uniform(-100, 100, [8, 2048]).astype(np.float16)
    z = np.zeros_like(x)

    real = load_kernel()
    stubbed = load_kernel()
    api = stub_api()
    stubbed.asc = api                       # the kernel's module-level name, swapped for the stubs
    addr = _Addr()

    def floor():
        for b in range(BLOCKS):
            api.block[0] = b
            stubbed.add_custom(addr, addr, addr)

    rows = [
        ("numpy x + y (16384 halves)", lambda: x + y, 2000),
        ("numpy, the same 128 tiles in a Python loop", lambda: numpy_tiles(x, y, z), 200),
        ("AddCustom Python against stub APIs (the floor)", floor, 200),
        ("AddCustom on the simulator (asc.launch)", lambda: asc.launch(real.add_custom, BLOCKS, x, y, z), 15),
    ]
    base = None
    print(f"{'case':52s} {'best CPU':>10s} {'median wall':>12s} {'x numpy':>9s}")
    for name, fn, n in rows:
        cpu, wall = best_and_median(fn, n)
        base = base or cpu
        print(f"{name:52s} {cpu * 1e3:8.3f} ms {wall * 1e3:10.3f} ms {cpu / base:8.1f}x")
    np.testing.assert_array_equal(z, x + y)


if __name__ == "__main__":
    main()
