"""DataCopy between GM and UB (ascendc.md §4.3): the count form and the DataCopyParams strided form.

GM->UB runs on PIPE_MTE2, UB->GM on PIPE_MTE3, UB->UB on PIPE_V. The UB address must be 32-byte aligned
and a count form's ``count * sizeof(T)`` a multiple of 32 bytes (the hardware silently rounds down;
DataCopyPad is the API for other lengths), both raised as ConstraintError.
"""
from __future__ import annotations

import functools

import warnings

from ..core.errors import ConstraintError, OutOfBoundsError
from ..core.options import options
from ..core.dtypes import DTYPES
from . import cost
from .context import current
from .rules import VECTOR_POSITIONS, check_not_freed
from .dense import copy_dense
from .tensor import GlobalTensor, LocalTensor
from .args import as_int
from .rules import UINT32_MAX


_U8 = DTYPES["uint8"]


class DataCopyAlignmentWarning(UserWarning):
    """A count-form DataCopy whose length is not a multiple of 32 bytes: the device copies the length
    rounded down to 32 bytes (DataCopy（GM与UB连续数据搬运）.md), and so does npusim."""


def unaligned_count(api: str, count: int, item: int) -> int:
    """The bytes the device moves for ``count`` elements that are not a whole number of 32-byte blocks:
    the length rounded down (a warning; strict mode raises, DataCopyPad being the API for such lengths)."""
    rule = ("count * sizeof(T) is a multiple of 32 bytes (the device rounds the copy down to 32 bytes; "
            "DataCopyPad is the API for other lengths)")
    if options().strict:
        raise ConstraintError(api, "count", rule, count)
    blen = count * item // 32 * 32
    warnings.warn(f"{api}: count {count} x {item} B = {count * item} B is not a multiple of 32 B; "
                  f"the device copies {blen} B", DataCopyAlignmentWarning, stacklevel=3)
    return blen


class DataCopyParams:
    __slots__ = ("blockCount", "blockLen", "srcStride", "dstStride")

    def __init__(self, blockCount=1, blockLen=0, srcStride=0, dstStride=0):
        api = "DataCopyParams"
        for name, v, hi in (("blockCount", blockCount, 4095), ("blockLen", blockLen, 65535),
                            ("srcStride", srcStride, 65535), ("dstStride", dstStride, 65535)):
            as_int(api, name, v, 0, hi, f"0 <= {name} <= {hi}")
        self.blockCount, self.blockLen = int(blockCount), int(blockLen)
        self.srcStride, self.dstStride = int(srcStride), int(dstStride)


def _side(t, api: str, name: str):
    if isinstance(t, LocalTensor):
        if t.position not in VECTOR_POSITIONS:
            raise ConstraintError(api, name, "a LocalTensor in VECIN / VECCALC / VECOUT (UB)", t.position.name)
        check_not_freed(api, name, t)
        if t.addr % 32:
            raise ConstraintError(api, name, "the UB address is 32-byte aligned", f"UB+{t.addr:#x}")
        return t.ctx.ub, t.addr, t.size * t.dtype.itemsize
    if isinstance(t, GlobalTensor):
        if t.addr is None:
            raise ConstraintError(api, name, "SetGlobalBuffer was called first", None)
        if t.addr.offset % t.dtype.itemsize:
            raise ConstraintError(api, name, "the GM address is sizeof(T)-aligned", t.addr)
        return t.addr.memory, t.addr.offset, t.addr.cap - t.addr.offset     # up to the allocation's end
    raise ConstraintError(api, name, "a LocalTensor or a GlobalTensor", type(t).__name__)


def DataCopy(dst, src, arg) -> None:
    api = "DataCopy"
    ctx = current()
    dmem, doff, dsize = _side(dst, api, "dst")
    smem, soff, ssize = _side(src, api, "src")
    from_gm, to_gm = isinstance(src, GlobalTensor), isinstance(dst, GlobalTensor)
    if from_gm and to_gm:
        raise ConstraintError(api, "dst", "one side is a LocalTensor (GM->GM is not a DataCopy)", None)
    if dst.dtype.itemsize != src.dtype.itemsize:
        raise ConstraintError(api, "src", "dst and src have the same element size", (dst.dtype, src.dtype))
    if isinstance(arg, DataCopyParams):
        p = arg
        nb, blen = p.blockCount, p.blockLen * 32
        shape = (nb, blen)
        sst, dst_st = (p.blockLen + p.srcStride) * 32, (p.blockLen + p.dstStride) * 32
    else:
        count = as_int(api, "count", arg, 0, UINT32_MAX, "a DataCopyParams or a count, 0 <= count <= UINT32_MAX")
        item = dst.dtype.itemsize
        blen = count * item
        if blen % 32:
            blen = unaligned_count(api, count, item)
        nb = 1
        shape, sst, dst_st = (1, blen), blen, blen
    nbytes = nb * blen
    if nbytes == 0:
        ctx.place("PIPE_V", api, 0)
        return
    for name, size, stride, t in (("src", ssize, sst, src), ("dst", dsize, dst_st, dst)):
        need = (nb - 1) * stride + blen
        if need > size and isinstance(t, GlobalTensor):
            a = t.addr
            raise OutOfBoundsError(a.memory.name, (a.offset, a.offset + need), (a.lo, a.cap),
                                   what=f"bytes of argument {a.name}'s allocation", api=api)
        if need > size:
            raise ConstraintError(api, name, f"the copy ({need} bytes) lies inside the {name} tensor "
                                  f"({size} bytes)", need)
    sv = ctx.view(soff, shape, (sst, 1), _U8, api, smem)
    dv = ctx.view(doff, shape, (dst_st, 1), _U8, api, dmem)
    if nb == 1:
        copy_dense(sv, dv, api)
    else:
        dv.write(sv.read(api))
    if from_gm:
        ctx.gm_accesses.append((sv, False, api))
        pipe, cycles = "PIPE_MTE2", _copy_cycles("in", nbytes, _chip_bpc(ctx), ctx.active_cores)
    elif to_gm:
        ctx.gm_accesses.append((dv, True, api))
        pipe, cycles = "PIPE_MTE3", _copy_cycles("out", nbytes, _chip_bpc(ctx), ctx.active_cores)
    else:
        pipe, cycles = "PIPE_V", -(-nbytes // 255)               # UB->UB: B / 255.3 (costs §3)
    ctx.place(pipe, api, cycles, reads=[sv.footprint], writes=[dv.footprint], nbytes=nbytes,
              elements=nbytes // dst.dtype.itemsize)


_copy_cycles = functools.lru_cache(maxsize=1024)(cost.copy_cycles)   # pure; a kernel repeats its sizes


def _chip_bpc(ctx) -> float:
    return ctx.soc.gm_chip_gbps * 1e9 / ctx.soc.freq_hz
