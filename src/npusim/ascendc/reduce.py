"""ReduceSum / ReduceMax / ReduceMin (level 2: the first ``count`` elements to dst[0]); the level-0
prototypes (mask, repeatTime, srcRepStride) are in reduce_level0.py.

Model of the hardware order (docs/ascendc.md): each pass reduces every repeat of E = 256/sizeof(T)
elements to one value (sum in float32, rounded to T once per repeat), and passes repeat until one value
is left. Max/Min are exact; with ``calIndex`` the first index of the extreme goes to dst[1], stored as an
integer of dst's width (read it with ReinterpretCast, as the vendor doc says).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from ..core.view import TensorView
from . import cost
from . import dtypes as T
from .context import current
from .reduce_level0 import HALF_INDEX_MAX, level0
from .reduce_repeat import write_spr
from .rules import check_count, check_dtypes, check_vector_tensor
from .vector_binary import to

# ReduceSum.md / ReduceMax.md / ReduceMin.md: half and float, but half only on Atlas training (910A).
_TYPES = {2201: (T.half, T.float), 2002: (T.half, T.float), 1001: (T.half,), 3002: (T.half, T.float)}


def _check_tensors(api, dst, src, work):
    ctx = current()
    for name, t in (("dstLocal", dst), ("srcLocal", src), ("workLocal", work)):
        check_vector_tensor(api, name, t)
    check_dtypes(api, "srcLocal", src, _TYPES.get(ctx.soc.arch, ()), ctx.soc)
    if dst.dtype != src.dtype or work.dtype != src.dtype:
        raise ConstraintError(api, "dstLocal", "dst, src and workLocal share a dtype", (dst.dtype, work.dtype))


def _check(api, dst, src, work, count):
    ctx = current()
    _check_tensors(api, dst, src, work)
    n = check_count(api, count)
    if n > src.size:
        raise ConstraintError(api, "srcLocal", f"count <= the LocalTensor's {src.size} elements (check instr failed)", n)
    if dst.size < 1:       # the result goes to dst[0]: an empty dst would write the next tensor's bytes
        raise ConstraintError(api, "dstLocal", "room for the result (at least 1 element)", dst.size)
    return ctx, n


def _passes(n: int, E: int) -> list[int]:
    out = []
    while True:
        r = -(-n // E)
        out.append(r)
        if r <= 1:
            return out
        n = r


def ReduceSum(dst, src, workLocal, *args) -> None:
    """``ReduceSum(dst, src, workLocal, count)`` | ``ReduceSum(dst, src, sharedTmpBuffer, mask, repeatTime,
    srcRepStride)`` (level 0, reduce_level0.py)."""
    api = "ReduceSum"
    if len(args) == 3:
        _check_tensors(api, dst, src, workLocal)
        return level0(api, "sum", dst, src, workLocal, *args)
    if len(args) != 1:
        raise ConstraintError(api, "arguments", "(dst, src, workLocal, count) or (dst, src, sharedTmpBuffer, "
                              "mask, repeatTime, srcRepStride)", len(args) + 3)
    ctx, n = _check(api, dst, src, workLocal, args[0])
    if n == 0:
        return ctx.place("PIPE_V", api, 0)
    E = 256 // src.dtype.itemsize
    sv = TensorView(ctx.ub, src.addr, (n,), None, src.dtype, api=api)
    x = sv.read(api).astype(np.float32)
    passes = _passes(n, E)
    for r in passes:
        pad = np.zeros(r * E, np.float32)
        pad[:x.size] = x
        x = to(ctx, pad.reshape(r, E).sum(axis=1, dtype=np.float32), src.dtype).astype(np.float32)
    dv = TensorView(ctx.ub, dst.addr, (1,), None, dst.dtype, api=api)
    dv.write(x[:1].astype(dst.dtype.np))
    cycles = sum(cost.vector_cycles("reduce_sum", r, src.dtype.name) for r in passes)
    ctx.place("PIPE_V", api, cycles, reads=[sv.footprint], writes=[dv.footprint], nbytes=n * src.dtype.itemsize,
              elements=n)


def _extreme(api, fn, dst, src, work, count, calIndex):
    ctx, n = _check(api, dst, src, work, count)
    if n == 0:
        return ctx.place("PIPE_V", api, 0)
    if calIndex and dst.size < 2:
        raise ConstraintError(api, "dstLocal", "room for the value and its index (2 elements)", dst.size)
    if calIndex and src.dtype.itemsize == 2 and n - 1 > HALF_INDEX_MAX:
        raise ConstraintError(api, "count", f"with calIndex on half the indices fit in uint16_t (count <= "
                              f"{HALF_INDEX_MAX + 1})", n)
    sv = TensorView(ctx.ub, src.addr, (n,), None, src.dtype, api=api)
    x = sv.read(api)
    i = int(fn(x))
    dv = TensorView(ctx.ub, dst.addr, (1,), None, dst.dtype, api=api)
    dv.write(x[i:i + 1])
    writes = [dv.footprint, write_spr(ctx, src.dtype, x[i:i + 1], i, api)]   # GetReduceRepeatMaxMinSpr's value
    if calIndex:
        it = {2: np.uint16, 4: np.uint32}[dst.dtype.itemsize]
        iv = TensorView(ctx.ub, dst.addr + dst.dtype.itemsize, (1,), None, np.dtype(it), api=api)
        iv.write(np.array([i], it))
        writes.append(iv.footprint)
    E = 256 // src.dtype.itemsize
    cycles = sum(cost.vector_cycles("reduce_maxmin", r, src.dtype.name) for r in _passes(n, E))
    ctx.place("PIPE_V", api, cycles, reads=[sv.footprint], writes=writes, nbytes=n * src.dtype.itemsize, elements=n)


def _max_min(api, kind, fn, dst, src, work, args, calIndex):
    """(count[, calIndex]) -> the count form; (mask, repeatTime, srcRepStride[, calIndex]) -> level 0."""
    if len(args) in (3, 4):
        if len(args) == 4:
            calIndex = args[3]
        _check_tensors(api, dst, src, work)
        return level0(api, kind, dst, src, work, *args[:3], bool(calIndex))
    if len(args) not in (1, 2):
        raise ConstraintError(api, "arguments", "(dst, src, workLocal, count[, calIndex]) or (dst, src, "
                              "sharedTmpBuffer, mask, repeatTime, srcRepStride[, calIndex])", len(args) + 3)
    if len(args) == 2:
        calIndex = args[1]
    _extreme(api, fn, dst, src, work, args[0], bool(calIndex))


def ReduceMax(dst, src, workLocal, *args, calIndex: bool = False) -> None:
    """``ReduceMax(dst, src, workLocal, count, calIndex=False)`` | ``ReduceMax(dst, src, sharedTmpBuffer, mask,
    repeatTime, srcRepStride, calIndex=False)`` (level 0, reduce_level0.py)."""
    _max_min("ReduceMax", "max", np.argmax, dst, src, workLocal, args, calIndex)


def ReduceMin(dst, src, workLocal, *args, calIndex: bool = False) -> None:
    """``ReduceMin(dst, src, workLocal, count, calIndex=False)`` | ``ReduceMin(dst, src, sharedTmpBuffer, mask,
    repeatTime, srcRepStride, calIndex=False)`` (level 0, reduce_level0.py)."""
    _max_min("ReduceMin", "min", np.argmin, dst, src, workLocal, args, calIndex)
