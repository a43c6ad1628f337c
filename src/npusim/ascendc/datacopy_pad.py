"""DataCopyPad: GM <-> UB copies of lengths that are not whole 32-byte blocks, with padding on the UB side.

Vendor pages: DataCopyPad（GMToUB非对齐数据搬运）.md, DataCopyPad（UBToGM非对齐数据搬运）.md, SetPadValue(ISASI).md
(asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/).

GM -> UB, block r of ``blockCount``: ``blockLen`` bytes read at ``src + r·(blockLen + srcStride)`` (bytes)
land in UB as ``[leftPadding elements][data][rightPadding elements][dummy]``, the whole rounded up to
32 bytes (``U`` bytes); block r starts at ``dst + r·(U + 32·dstStride)``. Pad and dummy values:
* leftPadding = rightPadding = 0: the dummy repeats the block's first element;
* otherwise ``isPad``: paddingValue; else the value of an earlier ``SetPadValue``; else "random" (the
  device leaves whatever is there: npusim leaves those bytes untouched, so reading them is an
  uninitialised read if they were never written).
UB -> GM: block r is read at ``src + r·(ceil32(blockLen) + 32·srcStride)`` and its ``blockLen`` bytes are
written at ``dst + r·(blockLen + dstStride)`` (bytes); the dummy tail is dropped.
``DataCopyParams`` (the older prototypes) takes the same fields in uint16_t, with ``DataCopyPadParams``.
blockCount or blockLen 0 is a NOP. A2/A3/310B only (310P and 910A: UnsupportedError).
"""
from __future__ import annotations

import numpy as np

from ..core.dtypes import DTYPES
from ..core.errors import ConstraintError, OutOfBoundsError, UnsupportedError
from . import cost
from .context import current
from .datacopy import DataCopyParams, _chip_bpc, _copy_cycles
from .dtypes import asc_name
from .rules import VECTOR_POSITIONS, check_not_freed
from .tensor import GlobalTensor, LocalTensor, scalar_to

_U8 = DTYPES["uint8"]
_ARCHS = {2201: "A2/A3", 3002: "310B"}
# Element types per product (the pages' 数据类型 lists; npusim has no uint64_t / double tensors).
# bool (1 byte) is copied as its bytes like uint8_t [A]: cann-ops kernels (select_reduce_max_d_sub_exp...) move
# bool masks with DataCopyPad<bool>, which the vendor template accepts.
_TYPES = {2201: ("bool", "int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32",
                 "int64"),
          3002: ("bool", "int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32")}


class DataCopyExtParams:
    """``{blockCount, blockLen (bytes), srcStride, dstStride, rsv}``; GM strides in bytes, UB strides in
    32-byte blocks."""
    __slots__ = ("blockCount", "blockLen", "srcStride", "dstStride", "rsv")

    def __init__(self, blockCount=1, blockLen=0, srcStride=0, dstStride=0, rsv=0):
        for name, v, hi in (("blockCount", blockCount, 4095), ("blockLen", blockLen, 2097151),
                            ("srcStride", srcStride, 2 ** 32 - 1), ("dstStride", dstStride, 2 ** 32 - 1)):
            if not 0 <= int(v) <= hi:
                raise ConstraintError("DataCopyExtParams", name, f"0 <= {name} <= {hi}", v)
        self.blockCount, self.blockLen = int(blockCount), int(blockLen)
        self.srcStride, self.dstStride, self.rsv = int(srcStride), int(dstStride), int(rsv)


class DataCopyPadExtParams:
    """``DataCopyPadExtParams<T>{isPad, leftPadding, rightPadding, paddingValue}``. T comes from the tensors;
    ``asc.DataCopyPadExtParams[asc.half](...)`` is accepted for line-by-line ports."""
    __slots__ = ("isPad", "leftPadding", "rightPadding", "paddingValue")

    def __init__(self, isPad=False, leftPadding=0, rightPadding=0, paddingValue=0):
        for name, v in (("leftPadding", leftPadding), ("rightPadding", rightPadding)):
            if not 0 <= int(v) <= 255:
                raise ConstraintError(type(self).__name__, name, "a uint8_t in [0, 255]", v)
        self.isPad, self.leftPadding, self.rightPadding = bool(isPad), int(leftPadding), int(rightPadding)
        self.paddingValue = paddingValue

    def __class_getitem__(cls, _dtype):
        return cls


class DataCopyPadParams(DataCopyPadExtParams):
    """The older ``DataCopyPadParams{isPad, leftPadding, rightPadding, paddingValue}`` (paddingValue a
    uint64_t in C++; npusim converts it to T as a value [A])."""
    __slots__ = ()


def SetPadValue(paddingValue, pos=None) -> None:
    """``SetPadValue<T>(paddingValue)``: the value DataCopyPad fills with when ``isPad`` is false (A2/A3)."""
    ctx = current()
    if ctx.soc.arch != 2201:
        raise UnsupportedError("SetPadValue", f"SetPadValue on {ctx.soc.name}", "A2/A3 only (SetPadValue(ISASI).md)")
    ctx.pad_value = paddingValue
    ctx.place("PIPE_MTE2", "SetPadValue", cost.MASK_CYCLES)


def _params(api: str, p):
    if isinstance(p, DataCopyExtParams):
        return p.blockCount, p.blockLen, p.srcStride, p.dstStride
    if isinstance(p, DataCopyParams):
        return p.blockCount, p.blockLen, p.srcStride, p.dstStride      # blockLen in bytes in this API
    raise ConstraintError(api, "dataCopyParams", "a DataCopyExtParams or DataCopyParams", type(p).__name__)


def _check_local(api: str, name: str, t) -> None:
    if t.position not in VECTOR_POSITIONS:
        raise ConstraintError(api, name, "a LocalTensor in VECIN / VECOUT (UB)", t.position.name)
    check_not_freed(api, name, t)
    if t.addr % 32:
        raise ConstraintError(api, name, "the UB address is 32-byte aligned", f"UB+{t.addr:#x}")


def _gm_view(ctx, g: GlobalTensor, nb: int, blen: int, stride: int, api: str):
    a = g.addr
    need = (nb - 1) * stride + blen
    if a.offset < a.lo or a.offset + need > a.cap:
        raise OutOfBoundsError(a.memory.name, (a.offset, a.offset + need), (a.lo, a.cap),
                               what=f"bytes of argument {a.name}'s allocation", api=api)
    return ctx.view(a.offset, (nb, blen), (stride, 1), _U8, api, a.memory)


def _ub_view(ctx, t: LocalTensor, nb: int, width: int, stride: int, api: str, name: str):
    need = (nb - 1) * stride + width
    size = t.size * t.dtype.itemsize
    if need > size:
        raise ConstraintError(api, name, f"the copy ({need} bytes with padding) lies inside the {name} tensor "
                              f"({size} bytes)", need)
    return ctx.view(t.addr, (nb, width), (stride, 1), _U8, api)


def DataCopyPad(dst, src, dataCopyParams, padParams=None) -> None:
    api = "DataCopyPad"
    ctx = current()
    arch = ctx.soc.arch
    if arch not in _ARCHS:
        raise UnsupportedError(api, f"DataCopyPad on {ctx.soc.name}", "A2/A3 and 310B only (DataCopyPad.md)")
    gm_to_ub = isinstance(dst, LocalTensor) and isinstance(src, GlobalTensor)
    if not gm_to_ub and not (isinstance(dst, GlobalTensor) and isinstance(src, LocalTensor)):
        raise ConstraintError(api, "dst", "GM -> VECIN/VECOUT or VECIN/VECOUT -> GM (LocalTensor, GlobalTensor)",
                              (type(dst).__name__, type(src).__name__))
    for t, name in ((dst, "dst"), (src, "src")):
        if isinstance(t, GlobalTensor) and t.addr is None:
            raise ConstraintError(api, name, "SetGlobalBuffer was called first", None)
    if dst.dtype is not src.dtype:
        raise ConstraintError(api, "src", "dst and src have the same T", (asc_name(dst.dtype), asc_name(src.dtype)))
    if dst.dtype.name not in _TYPES[arch]:
        raise ConstraintError(api, "T", f"one of {', '.join(asc_name(d) for d in _TYPES[arch])} on {ctx.soc.name}",
                              asc_name(dst.dtype))
    s = dst.dtype.itemsize
    nb, blen, sst, dst_st = _params(api, dataCopyParams)
    if blen % s:
        raise ConstraintError(api, "blockLen", "blockLen is a multiple of sizeof(T)", blen)
    if gm_to_ub:
        if padParams is None:
            padParams = DataCopyPadExtParams()
        if not isinstance(padParams, DataCopyPadExtParams):
            raise ConstraintError(api, "padParams", "a DataCopyPadExtParams<T> (or DataCopyPadParams)",
                                  type(padParams).__name__)
        for name in ("leftPadding", "rightPadding"):
            if getattr(padParams, name) * s > 32:
                raise ConstraintError(api, name, f"{name} * sizeof(T) <= 32 bytes (at most {32 // s} elements "
                                      f"of {asc_name(dst.dtype)})", getattr(padParams, name))
        if padParams.isPad and s == 8 and padParams.paddingValue != 0:
            raise ConstraintError(api, "paddingValue", "0 for 64-bit types", padParams.paddingValue)
        _check_local(api, "dst", dst)
    elif padParams is not None:
        raise ConstraintError(api, "padParams", "no padding parameters on the UB -> GM path", padParams)
    else:
        _check_local(api, "src", src)
    if nb == 0 or blen == 0:
        ctx.place("PIPE_MTE2" if gm_to_ub else "PIPE_MTE3", api, 0)
        return
    if gm_to_ub:
        _gm_to_ub(ctx, api, dst, src, nb, blen, sst, dst_st, padParams)
    else:
        _ub_to_gm(ctx, api, dst, src, nb, blen, sst, dst_st)


def _gm_to_ub(ctx, api, dst, src, nb, blen, sst, dst_st, pad) -> None:
    s = dst.dtype.itemsize
    left, right = pad.leftPadding * s, pad.rightPadding * s
    width = -(-(left + blen + right) // 32) * 32
    uv = _ub_view(ctx, dst, nb, width, width + 32 * dst_st, api, "dst")
    gv = _gm_view(ctx, src, nb, blen, blen + sst, api)
    data = gv.read(api)
    block = np.zeros((nb, width), np.uint8)
    written = np.zeros((nb, width), bool)
    block[:, left:left + blen] = data
    written[:, left:left + blen] = True
    if width > left + blen + right or left or right:
        if not left and not right:          # dummy = the block's first element
            first = data[:, :s]
            reps = (width - blen) // s
            block[:, blen:] = np.tile(first, (1, reps))
            written[:, blen:] = True
        else:
            value = pad.paddingValue if pad.isPad else ctx.pad_value
            if value is not None:
                raw = scalar_to(value, dst.dtype).view(np.uint8)
                fill = np.tile(raw, width // s)
                mask = np.ones(width, bool)
                mask[left:left + blen] = False
                block[:, mask] = fill[mask]
                written[:, mask] = True
    uv.write(block, where=None if written.all() else written)
    ctx.gm_accesses.append((gv, False, api))
    cycles = _copy_cycles("in", nb * width, _chip_bpc(ctx), ctx.active_cores)
    ctx.place("PIPE_MTE2", api, cycles, reads=[gv.footprint], writes=[uv.footprint], nbytes=nb * blen,
              elements=nb * blen // s)


def _ub_to_gm(ctx, api, dst, src, nb, blen, sst, dst_st) -> None:
    s = src.dtype.itemsize
    width = -(-blen // 32) * 32
    uv = _ub_view(ctx, src, nb, blen, width + 32 * sst, api, "src")
    gv = _gm_view(ctx, dst, nb, blen, blen + dst_st, api)
    gv.write(uv.read(api))
    ctx.gm_accesses.append((gv, True, api))
    cycles = _copy_cycles("out", nb * width, _chip_bpc(ctx), ctx.active_cores)
    ctx.place("PIPE_MTE3", api, cycles, reads=[uv.footprint], writes=[gv.footprint], nbytes=nb * blen,
              elements=nb * blen // s)
