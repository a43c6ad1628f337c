"""Per-repeat and per-datablock reductions (level 0, one result per repeat or per 32-byte block):

    WholeReduceMax(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order=ORDER_VALUE_INDEX)
    WholeReduceMin(...)                  the same
    WholeReduceSum(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride)
    RepeatReduceSum(dst, src, repeatTime, mask, dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)
    BlockReduceMax / BlockReduceMin / BlockReduceSum(dst, src, repeatTime, mask, dstRepStride, srcBlkStride,
                                                     srcRepStride)
    GetReduceRepeatMaxMinSpr(T) -> (value, index)

Vendor pages: ReduceRepeat.md (the WholeReduce* family under its new name), ReduceDataBlock.md (BlockReduce*),
GetReduceRepeatMaxMinSpr(ISASI).md; signatures from kernel_operator_vec_reduce_intf_impl.h (asc-devkit).
Repeat r reads E = 256/sizeof(T) elements at ``src + r·srcRepStride·32 + block·srcBlkStride·32`` bytes; the
mask (set by the call unless ``isSetMask=False``) picks the lanes. Sums are binary trees (neighbours added
pairwise, each addition rounded to T: ReduceDataBlock.md 关键特性说明). Max/Min keep the smallest index among
equal extremes; the index is the lane inside the repeat, stored as an unsigned integer of T's width
(uint32_t for ORDER_ONLY_INDEX), to be read with ReinterpretCast as the vendor page says.
dstRepStride units (ReduceRepeat.md 表3): Sum sizeof(T); Max/Min value+index 2·sizeof(T), value only
sizeof(T), index only 4 B; BlockReduce* one repeat's 8 results (8·sizeof(T)) [A: the page gives the
alignment, 16 B half / 32 B float, not the unit]. Counter mode (SetMaskCount): the mask register's count N
gives ceil(N / E) repeats, the last one partial, repeatTime ignored ([R] §1.4).
The vendor's newer names are here too: ``ReduceRepeat[ReduceType.SUM, T, U, isSetMask](dst, src, mask,
repeatTime, dstRepStride, srcBlkStride, srcRepStride[, order])`` and ``ReduceDataBlock[...](dst, src, mask,
repeatTime, dstRepStride, srcBlkStride, srcRepStride)`` (note: mask before repeatTime, unlike BlockReduce*).
"""
from __future__ import annotations

import enum

import numpy as np

from ..core.errors import ConstraintError, UnsupportedError
from ..core.memory import Memory
from . import cost
from . import dtypes as T
from .context import current
from .dtypes import asc_name
from .repeat import Operand, _read, check_footprint, resolve_mask
from .rules import check_dtypes, check_repeat, check_u16, check_vector_tensor
from .template import TemplateFn
from .vector_binary import to


class ReduceOrder(enum.Enum):
    ORDER_VALUE_INDEX = 0
    ORDER_INDEX_VALUE = 1
    ORDER_ONLY_VALUE = 2
    ORDER_ONLY_INDEX = 3


_O = ReduceOrder
# ReduceRepeat.md: the orders each product supports.
_ORDERS = {2201: tuple(_O), 3002: (_O.ORDER_VALUE_INDEX, _O.ORDER_ONLY_VALUE),
           2002: (_O.ORDER_VALUE_INDEX, _O.ORDER_INDEX_VALUE), 1001: (_O.ORDER_VALUE_INDEX,)}
_TYPES = {2201: (T.half, T.float), 3002: (T.half, T.float), 2002: (T.half, T.float), 1001: (T.half,)}
_UINT = {2: np.uint16, 4: np.uint32}


def _spr(ctx) -> Memory:
    """The reduce special register (value, index) as a tiny memory, so a PIPE_S read of it after a vector
    write is ordered (or auto-synchronised) like any other access."""
    m = getattr(ctx, "reduce_spr", None)
    if m is None:
        m = ctx.reduce_spr = Memory(f"ReduceSPR({ctx.timeline.core})", 16)
    return m


def write_spr(ctx, dtype, value, index: int, api: str):
    """Set the reduce special register (value, index) that GetReduceRepeatMaxMinSpr reads; returns its
    footprint for the writing instruction's event."""
    s = dtype.itemsize
    spr = ctx.view(0, (16,), None, T.uint8_t, api, _spr(ctx))
    reg = np.zeros(16, np.uint8)
    reg[:s] = np.asarray(value).astype(dtype.np).reshape(-1)[:1].view(np.uint8)
    reg[8:8 + s] = np.array([index], _UINT[s]).view(np.uint8)
    spr.write(reg)
    ctx.reduce_spr_dtype = dtype
    return spr.footprint


def _operands(api, dst, src, mask, repeatTime, srcBlkStride, srcRepStride, isSetMask):
    ctx = current()
    check_vector_tensor(api, "dst", dst)
    check_vector_tensor(api, "src", src)
    check_dtypes(api, "src", src, _TYPES.get(ctx.soc.arch, ()), ctx.soc)
    if dst.dtype is not src.dtype:
        raise ConstraintError(api, "dst", "dst and src have the same dtype", (asc_name(dst.dtype), asc_name(src.dtype)))
    R = check_repeat(api, repeatTime)
    blk = check_u16(api, "srcBlkStride", srcBlkStride)
    rep = check_u16(api, "srcRepStride", srcRepStride)
    s = src.dtype.itemsize
    E = 256 // s
    lanes, N = resolve_mask(api, ctx, mask, isSetMask, E, s)
    if N is not None:                 # counter mode: N elements, ceil(N / E) repeats, repeatTime ignored
        R = -(-N // E)
        lanes = None if N == R * E else _counter_lanes(R, E, N)
    if R == 0 or lanes is False:
        ctx.place("PIPE_V", api, 0)
        return None
    op = Operand("src", src, blk, rep)
    op.shape_for(E)
    if lanes is not None and lanes.ndim == 2:          # counter mode's partial last repeat
        check_footprint(api, op, R, int(lanes[-1].sum()), E, None, params="srcBlkStride, srcRepStride")
    else:
        check_footprint(api, op, R, E, E, lanes, params="srcBlkStride, srcRepStride")
    sv = ctx.view(src.addr, (R, op.nblk, op.bpb), (rep * 32, blk * 32, s), src.dtype, api)
    active = np.ones((R, E), bool) if lanes is None else np.broadcast_to(lanes, (R, E))
    x = _read(sv, None if lanes is None else np.ascontiguousarray(active).reshape(R, op.nblk, op.bpb),
              api).reshape(R, E)
    return ctx, R, E, s, x, active, sv


def _counter_lanes(R: int, E: int, N: int) -> np.ndarray:
    return (np.arange(R * E) < N).reshape(R, E)


def _dst_view(ctx, api, dst, R, dst_rep, unit, nbytes_per):
    """dst's repeat r at ``dst + r·dstRepStride·unit`` bytes, ``nbytes_per`` bytes each (as raw bytes)."""
    dst_rep = check_u16(api, "dstRepStride", dst_rep)
    if dst.addr % min(unit, 32):
        raise ConstraintError(api, "dst", f"the dst address is {min(unit, 32)}-byte aligned for this dtype and order",
                              f"UB+{dst.addr:#x}")
    need = (R - 1) * dst_rep * unit + nbytes_per
    size = dst.size * dst.dtype.itemsize
    if need > size:
        raise ConstraintError(api, "dst", f"the results ({need} bytes with dstRepStride {dst_rep}) lie inside the "
                              f"LocalTensor ({size} bytes) (check instr failed)", need)
    return ctx.view(dst.addr, (R, nbytes_per), (dst_rep * unit, 1), T.uint8_t, api)


def tree_sum(ctx, x: np.ndarray, dtype) -> np.ndarray:
    """Row-wise binary tree over the last axis (a power of two), each addition rounded to ``dtype``."""
    x = x.astype(np.float32)
    while x.shape[-1] > 1:
        x = to(ctx, x[..., 0::2] + x[..., 1::2], dtype).astype(np.float32)
    return x[..., 0]


def _whole_extreme(api, kind, dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order,
                   isSetMask):
    got = _operands(api, dst, src, mask, repeatTime, srcBlkStride, srcRepStride, isSetMask)
    if got is None:
        return
    ctx, R, E, s, x, active, sv = got
    if not isinstance(order, ReduceOrder):
        raise ConstraintError(api, "order", "a ReduceOrder", order)
    if order not in _ORDERS.get(ctx.soc.arch, ()):
        raise ConstraintError(api, "order", f"one of {', '.join(o.name for o in _ORDERS[ctx.soc.arch])} on "
                              f"{ctx.soc.name}", order.name)
    fill = -np.inf if kind == "max" else np.inf
    xf = np.where(active, x.astype(np.float64), fill)
    idx = np.argmax(xf, axis=1) if kind == "max" else np.argmin(xf, axis=1)   # first among equals
    val = x[np.arange(R), idx]
    vbytes = val.astype(src.dtype.np).view(np.uint8).reshape(R, s)
    if order is _O.ORDER_ONLY_INDEX:
        ibytes = idx.astype(np.uint32).view(np.uint8).reshape(R, 4)
        out, unit = ibytes, 4
    else:
        ibytes = idx.astype(_UINT[s]).view(np.uint8).reshape(R, s)
        out, unit = {_O.ORDER_VALUE_INDEX: (np.concatenate([vbytes, ibytes], 1), 2 * s),
                     _O.ORDER_INDEX_VALUE: (np.concatenate([ibytes, vbytes], 1), 2 * s),
                     _O.ORDER_ONLY_VALUE: (vbytes, s)}[order]
    dv = _dst_view(ctx, api, dst, R, dstRepStride, unit, out.shape[1])
    dv.write(out)
    # The special register: the extreme over every repeat and its index r·E + lane (contiguous case).
    flat = xf.reshape(-1)
    g = int(np.argmax(flat) if kind == "max" else np.argmin(flat))
    spr = write_spr(ctx, src.dtype, x.reshape(-1)[g:g + 1], g, api)
    n = int(np.count_nonzero(active))
    ctx.place("PIPE_V", api, cost.vector_cycles("reduce_maxmin", R, src.dtype.name), reads=[sv.footprint],
              writes=[dv.footprint, spr], nbytes=n * s, elements=n, args={"order": order.name})


def WholeReduceMax(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                   order: ReduceOrder = ReduceOrder.ORDER_VALUE_INDEX, *, isSetMask: bool = True) -> None:
    _whole_extreme("WholeReduceMax", "max", dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                   order, isSetMask)


def WholeReduceMin(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                   order: ReduceOrder = ReduceOrder.ORDER_VALUE_INDEX, *, isSetMask: bool = True) -> None:
    _whole_extreme("WholeReduceMin", "min", dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                   order, isSetMask)


def _whole_sum(api, dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, isSetMask) -> None:
    got = _operands(api, dst, src, mask, repeatTime, srcBlkStride, srcRepStride, isSetMask)
    if got is None:
        return
    ctx, R, E, s, x, active, sv = got
    sums = tree_sum(ctx, np.where(active, x, 0), src.dtype)
    dv = _dst_view(ctx, api, dst, R, dstRepStride, s, s)
    dv.write(to(ctx, sums, src.dtype).astype(src.dtype.np).view(np.uint8).reshape(R, s))
    n = int(np.count_nonzero(active))
    ctx.place("PIPE_V", api, cost.vector_cycles("reduce_sum", R, src.dtype.name), reads=[sv.footprint],
              writes=[dv.footprint], nbytes=n * s, elements=n)


def WholeReduceSum(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, *,
                   isSetMask: bool = True) -> None:
    _whole_sum("WholeReduceSum", dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, isSetMask)


def RepeatReduceSum(dst, src, repeatTime, mask, dstBlkStride, srcBlkStride, dstRepStride, srcRepStride, *,
                    isSetMask: bool = True) -> None:
    """``RepeatReduceSum(dst, src, repeatTime, elemsInOneRepeat, dstBlkStride, srcBlkStride, dstRepStride,
    srcRepStride)``: WholeReduceSum with a continuous mask; dstBlkStride is unused (the vendor's vcadd
    call does not pass it)."""
    api = "RepeatReduceSum"
    if isinstance(mask, (list, tuple)):
        raise ConstraintError(api, "mask", "an element count (continuous mask)", mask)
    check_u16(api, "dstBlkStride", dstBlkStride)
    _whole_sum(api, dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, isSetMask)


def _block_reduce(api, kind, dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, isSetMask):
    got = _operands(api, dst, src, mask, repeatTime, srcBlkStride, srcRepStride, isSetMask)
    if got is None:
        return
    ctx, R, E, s, x, active, sv = got
    bpb = 32 // s
    xb, ab = x.reshape(R, 8, bpb), active.reshape(R, 8, bpb)
    if kind == "sum":
        res = to(ctx, tree_sum(ctx, np.where(ab, xb, 0), src.dtype), src.dtype).astype(src.dtype.np)
    else:
        fill = -np.inf if kind == "max" else np.inf
        xf = np.where(ab, xb.astype(np.float64), fill)
        i = np.argmax(xf, axis=2) if kind == "max" else np.argmin(xf, axis=2)
        res = np.take_along_axis(xb, i[..., None], axis=2)[..., 0]
    any_lane = ab.any(axis=2)                                  # (R, 8)
    dv = _dst_view(ctx, api, dst, R, dstRepStride, 8 * s, 8 * s)
    raw = res.astype(src.dtype.np).view(np.uint8).reshape(R, 8 * s)
    if ctx.soc.arch == 3002:
        # 310B: a block with no active lane gets the reduction's default value (ReduceDataBlock.md)
        default = {"sum": 0.0, "max": -np.inf if s == 4 else -65504.0, "min": np.inf if s == 4 else 65504.0}[kind]
        res = np.where(any_lane, res, np.array(default, src.dtype.np))
        dv.write(res.astype(src.dtype.np).view(np.uint8).reshape(R, 8 * s))
    elif any_lane.all():
        dv.write(raw)
    else:                                                      # A2/A3: such blocks keep dst's old value
        dv.write(raw, where=np.repeat(any_lane, s, axis=1))
    n = int(np.count_nonzero(active))
    ctx.place("PIPE_V", api, cost.vector_cycles("reduce_sum" if kind == "sum" else "reduce_maxmin", R,
                                                src.dtype.name),
              reads=[sv.footprint], writes=[dv.footprint], nbytes=n * s, elements=n)


def BlockReduceSum(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, *,
                   isSetMask: bool = True) -> None:
    _block_reduce("BlockReduceSum", "sum", dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride,
                  isSetMask)


def BlockReduceMax(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, *,
                   isSetMask: bool = True) -> None:
    _block_reduce("BlockReduceMax", "max", dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride,
                  isSetMask)


def BlockReduceMin(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, *,
                   isSetMask: bool = True) -> None:
    _block_reduce("BlockReduceMin", "min", dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride,
                  isSetMask)


def GetReduceRepeatMaxMinSpr(dtype):
    """``GetReduceRepeatMaxMinSpr<T>(value, index)`` -> ``(value, index)``: the extreme over every repeat of the
    last WholeReduceMax/Min and its index ``r·E + lane``, the index stored in T's bits as on the device
    (``np.asarray(index).view(np.uint16 or np.uint32)`` reads it, like the vendor's reinterpret_cast).
    A2/A3 only; a PIPE_S read (auto-sync orders it after the vector instruction)."""
    api = "GetReduceRepeatMaxMinSpr"
    ctx = current()
    from .args import dtype as _dtype_arg
    d = _dtype_arg(api, "T", dtype)
    if ctx.soc.arch != 2201:
        raise UnsupportedError(api, f"{api}(value, index) on {ctx.soc.name}", "A2/A3 only")
    if d is not T.half and d is not T.float:
        raise ConstraintError(api, "T", "half or float", asc_name(d))
    last = getattr(ctx, "reduce_spr_dtype", None)
    if last is not None and last is not d:
        raise ConstraintError(api, "T", f"the dtype of the reduction that set the register ({asc_name(last)})",
                              asc_name(d))
    spr = ctx.view(0, (16,), None, T.uint8_t, api, _spr(ctx))
    ctx.place("PIPE_S", api, cost.SCALAR_CYCLES, reads=[spr.footprint])
    raw = spr.read(api)
    s = d.itemsize
    return raw[:s].view(d.np)[0], raw[8:8 + s].view(d.np)[0]


class ReduceType(enum.Enum):
    SUM = 0
    MAX = 1
    MIN = 2


def _reduce_type(api, reduceType):
    if not isinstance(reduceType, ReduceType):
        raise ConstraintError(api, "reduceType", "a ReduceType (SUM, MAX, MIN) template argument", reduceType)
    return reduceType


def _reduce_repeat(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                   order: ReduceOrder = ReduceOrder.ORDER_VALUE_INDEX, *, reduceType=None, T=None, U=None,
                   isSetMask: bool = True) -> None:
    rt = _reduce_type("ReduceRepeat", reduceType)
    if rt is ReduceType.SUM:
        return _whole_sum("ReduceRepeat", dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                          isSetMask)
    _whole_extreme("ReduceRepeat", rt.name.lower(), dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
                   srcRepStride, order, isSetMask)


def _reduce_data_block(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, *, reduceType=None,
                       T=None, U=None, isSetMask: bool = True) -> None:
    rt = _reduce_type("ReduceDataBlock", reduceType)
    _block_reduce("ReduceDataBlock", rt.name.lower(), dst, src, repeatTime, mask, dstRepStride, srcBlkStride,
                  srcRepStride, isSetMask)


ReduceRepeat = TemplateFn(_reduce_repeat, ("reduceType", "T", "U", "isSetMask"))
ReduceDataBlock = TemplateFn(_reduce_data_block, ("reduceType", "T", "U", "isSetMask"))
