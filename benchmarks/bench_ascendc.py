"""Ascend C: AddReluCast over 192 KiB of UB in one call, per-instruction overhead on one repeat, and the
AddCustom kernel (8 blocks x 2048 halves, double buffered), each against plain numpy doing the same math, and
AddCustom against numpy running the same 128 tiles. benchmarks/addcustom_floor.py measures the kernel's own
Python against stub APIs (the floor)."""
import importlib.util
import os

import numpy as np

from harness import Case
from npusim import ascendc as asc

HERE = os.path.dirname(os.path.abspath(__file__))
N_BIG = 39296            # 2 half sources + 1 int8 dst = 5 B per element: 196480 B of the 196608 B UB
N_CALLS = 1000


def _numpy_add_relu_cast(a, b):
    s = (a.astype(np.float32) + b.astype(np.float32)).astype(np.float16)
    return np.clip(np.rint(np.maximum(s, np.float16(0))), -128, 127).astype(np.int8)


def _big_call():
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(N_BIG) * 100).astype(np.float16)
    b = (rng.standard_normal(N_BIG) * 100).astype(np.float16)
    cm = asc.core_context("Ascend910B1")
    cm.__enter__()
    pipe = asc.TPipe()
    buf = asc.TBuf()
    pipe.InitBuffer(buf, 192 * 1024)
    s0 = buf.GetWithOffset(asc.half, N_BIG, 0).load(a)
    s1 = buf.GetWithOffset(asc.half, N_BIG, N_BIG * 2).load(b)
    d = buf.GetWithOffset(asc.int8_t, N_BIG, N_BIG * 4)
    ctx = asc.context.current()
    cm.__exit__(None, None, None)

    def run():
        asc.context.push(ctx)
        try:
            asc.AddReluCast(d, s0, s1, N_BIG)
        finally:
            asc.context.pop()
            ctx.timeline.reset()
    return run, (lambda: _numpy_add_relu_cast(a, b))


def _one_repeat_calls():
    cm = asc.core_context("Ascend910B1")
    cm.__enter__()
    pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 1024)
    s0 = buf.GetWithOffset(asc.half, 128, 0).load(np.ones(128))
    s1 = buf.GetWithOffset(asc.half, 128, 256).load(np.full(128, 0.5))
    d = buf.GetWithOffset(asc.int8_t, 128, 512)
    ctx = asc.context.current()
    cm.__exit__(None, None, None)
    p = asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8)

    def run():
        asc.context.push(ctx)
        try:
            for _ in range(N_CALLS):
                asc.AddReluCast(d, s0, s1, 128, 1, p)
        finally:
            asc.context.pop()
            ctx.timeline.reset()
    return run


def _numpy_small():
    a = np.ones(128, np.float16)
    b = np.full(128, 0.5, np.float16)

    def run():
        for _ in range(N_CALLS):
            _numpy_add_relu_cast(a, b)
    return run


def _add_custom():
    spec = importlib.util.spec_from_file_location(
        "asc_add_custom", os.path.join(HERE, "..", "examples", "ascendc", "add_custom.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rng = np.random.default_rng(0)
    x = rng.uniform(-100, 100, [8, 2048]).astype(np.float16)
    y = rng.uniform(-100, 100, [8, 2048]).astype(np.float16)
    z = np.zeros_like(x)
    return (lambda: asc.launch(mod.add_custom, 8, x, y, z)), (lambda: x + y), (lambda: _numpy_tiles(x, y, z))


def _numpy_tiles(x, y, z, tile: int = 128):
    """numpy doing AddCustom's structure: per block, per tile, copy x and y in, add, copy z out (128 tiles)."""
    xf, yf, zf = x.reshape(-1), y.reshape(-1), z.reshape(-1)
    for lo in range(0, xf.size, tile):
        xl = xf[lo:lo + tile].copy()
        yl = yf[lo:lo + tile].copy()
        zl = xl + yl
        zf[lo:lo + tile] = zl


def cases():
    big, big_np = _big_call()
    kern, kern_np, kern_tiles = _add_custom()
    return [
        Case(f"AddReluCast half->int8, {N_BIG} elements (192 KiB UB), count form", big, numpy=big_np,
             target="within 2x of numpy"),
        Case("AddReluCast, one repeat (level 0, mask 128); numpy = the same 128-element math", _one_repeat_calls(),
             numpy=_numpy_small(), per=N_CALLS, target="< 30 us per instruction"),
        Case("AddCustom kernel, 8 blocks x 2048 half, double buffered (launch)", kern, numpy=kern_np, repeats=3),
        Case("AddCustom, numpy running the same 128 tiles (per-tile copies and adds in a Python loop)", kern,
             numpy=kern_tiles, repeats=3),
    ]
