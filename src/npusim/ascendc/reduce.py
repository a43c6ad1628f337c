"""ReduceSum / ReduceMax / ReduceMin (level 2: the first ``count`` elements to dst[0]).

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
from .rules import check_count, check_dtypes, check_vector_tensor
from .vector_binary import to

_TYPES = {a: (T.half, T.float) for a in (2201, 2002, 1001, 3002)}


def _check(api, dst, src, work, count):
    ctx = current()
    for name, t in (("dstLocal", dst), ("srcLocal", src), ("workLocal", work)):
        check_vector_tensor(api, name, t)
    check_dtypes(api, "srcLocal", src, _TYPES.get(ctx.soc.arch, ()), ctx.soc)
    if dst.dtype != src.dtype or work.dtype != src.dtype:
        raise ConstraintError(api, "dstLocal", "dst, src and workLocal share a dtype", (dst.dtype, work.dtype))
    n = check_count(api, count)
    if n > src.size:
        raise ConstraintError(api, "srcLocal", f"count <= the LocalTensor's {src.size} elements (check instr failed)", n)
    return ctx, n


def _passes(n: int, E: int) -> list[int]:
    out = []
    while True:
        r = -(-n // E)
        out.append(r)
        if r <= 1:
            return out
        n = r


def ReduceSum(dst, src, workLocal, count) -> None:
    api = "ReduceSum"
    ctx, n = _check(api, dst, src, workLocal, count)
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
    sv = TensorView(ctx.ub, src.addr, (n,), None, src.dtype, api=api)
    x = sv.read(api)
    i = int(fn(x))
    dv = TensorView(ctx.ub, dst.addr, (1,), None, dst.dtype, api=api)
    dv.write(x[i:i + 1])
    writes = [dv.footprint]
    if calIndex:
        it = {2: np.uint16, 4: np.uint32}[dst.dtype.itemsize]
        iv = TensorView(ctx.ub, dst.addr + dst.dtype.itemsize, (1,), None, np.dtype(it), api=api)
        iv.write(np.array([i], it))
        writes.append(iv.footprint)
    E = 256 // src.dtype.itemsize
    cycles = sum(cost.vector_cycles("reduce_maxmin", r, src.dtype.name) for r in _passes(n, E))
    ctx.place("PIPE_V", api, cycles, reads=[sv.footprint], writes=writes, nbytes=n * src.dtype.itemsize, elements=n)


def ReduceMax(dst, src, workLocal, count, calIndex: bool = False) -> None:
    _extreme("ReduceMax", np.argmax, dst, src, workLocal, count, calIndex)


def ReduceMin(dst, src, workLocal, count, calIndex: bool = False) -> None:
    _extreme("ReduceMin", np.argmin, dst, src, workLocal, count, calIndex)
