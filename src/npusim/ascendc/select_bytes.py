"""Select with a bytes mask (the advanced ``Select``; older name ``SelectWithBytesMask``).

    Select(dst, src0Tensor, src1Scalar, mask, sharedTmpBuffer, info)     mask 0 -> src0, else src1
    Select(dst, src0Scalar, src1Tensor, mask, sharedTmpBuffer, info)
    <T, U, isReuseMask=true>

Vendor page Select-95.md (asc-devkit 高阶API/数据过滤) and impl/adv_api/tiling/select/
selectwithbytesmask_tiling_impl.cpp. ``info`` = SelectWithBytesMaskShapeInfo(firstAxis, srcLastAxis,
maskLastAxis): the source is [firstAxis, srcLastAxis] (last axis 32-byte aligned), the mask
[firstAxis, maskLastAxis] (maskLastAxis >= srcLastAxis, 32-byte aligned and a multiple of 16; the extra columns
take no part). T half/float; U bool, int8/uint8, int16/uint16, int32/uint32; A2/A3 and 310P AI Core.
sharedTmpBuffer >= max(1024, align32(min(n, 4096))·2 + 512) bytes, plus align32(n·sizeof(U)) when the axes
differ and isReuseMask is false. With isReuseMask and different axes the page says the mask "may be
rewritten": npusim writes the compacted [firstAxis, srcLastAxis] mask into its start, so a kernel relying on
it afterwards sees the change [A]. The ``Select(dst, selMask, src0, src1, selMode, ...)`` basic API is
dispatched unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import ConstraintError, UnsupportedError
from . import cost
from . import dtypes as T
from .adv_common import check_tensors, tmp_footprint, ub_view
from .compare_select import Select as _basic_select
from .context import current
from .dtypes import asc_name
from .tensor import LocalTensor, scalar_to

_ARCH = (2201, 2002)
_MASK_TYPES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32")


@dataclass
class SelectWithBytesMaskShapeInfo:
    firstAxis: int = 0
    srcLastAxis: int = 0
    maskLastAxis: int = 0


def GetSelectWithBytesMaskMinTmpSize(n_src: int, mask_type_size: int, axes_differ: bool,
                                     isReuseMask: bool = True) -> int:
    from .args import as_int
    n_src = as_int("GetSelectWithBytesMaskMinTmpSize", "n_src", n_src, 0, 2 ** 32 - 1)
    mask_type_size = as_int("GetSelectWithBytesMaskMinTmpSize", "mask_type_size", mask_type_size, 1, 8)
    cal = min(n_src, 4096)
    need = max(1024, -(-cal // 32) * 32 * 2 + 512)
    if axes_differ and not isReuseMask:
        need += -(-int(n_src) * int(mask_type_size) // 32) * 32
    return need


def SelectWithBytesMask(dst, src0, src1, mask, sharedTmpBuffer, info, *, T=None, U=None, isReuseMask=True) -> None:
    api = "Select"
    ctx = current()
    if ctx.soc.arch not in _ARCH:
        raise UnsupportedError(api, f"Select with a bytes mask on {ctx.soc.name}", "A2/A3 and Atlas inference AI Core")
    tensor_first = isinstance(src0, LocalTensor)
    src = src0 if tensor_first else src1
    scalar = src1 if tensor_first else src0
    if isinstance(scalar, LocalTensor):
        raise ConstraintError(api, "src1", "one tensor and one scalar source", "two tensors")
    check_tensors(api, ctx, (_T.half, _T.float), dst=dst, srcTensor=src)
    if dst.dtype is not src.dtype:
        raise ConstraintError(api, "dst", "dst has the source's T", asc_name(dst.dtype))
    if not isinstance(mask, LocalTensor) or mask.dtype.name not in _MASK_TYPES:
        raise ConstraintError(api, "mask", "a LocalTensor of bool, int8/uint8, int16/uint16 or int32/uint32",
                              getattr(mask, "dtype", mask))
    if not isinstance(info, SelectWithBytesMaskShapeInfo):
        raise ConstraintError(api, "info", "a SelectWithBytesMaskShapeInfo", info)
    m, k, mk = int(info.firstAxis), int(info.srcLastAxis), int(info.maskLastAxis)
    s, u = src.dtype.itemsize, mask.dtype.itemsize
    if (k * s) % 32:
        raise ConstraintError(api, "srcLastAxis", "the source's last axis is 32-byte aligned", k)
    if mk < k or (mk * u) % 32 or mk % 16:
        raise ConstraintError(api, "maskLastAxis", "maskLastAxis >= srcLastAxis, 32-byte aligned and a multiple of 16",
                              mk)
    if m * k > src.size or m * k > dst.size or m * mk > mask.size:
        raise ConstraintError(api, "info", "firstAxis * lastAxis elements fit the tensors", (m, k, mk))
    tmp_fp = tmp_footprint(api, ctx, sharedTmpBuffer, GetSelectWithBytesMaskMinTmpSize(m * k, u, mk != k, isReuseMask),
                           dst, src, mask)
    sv = ub_view(src, (m, k), (k * s, s), api)
    mv = ub_view(mask, (m, mk), (mk * u, u), api)
    sel = mv.read(api)[:, :k].astype(bool)
    x = sv.read(api)
    c = scalar_to(scalar, src.dtype)[0]
    out = np.where(sel, c, x) if tensor_first else np.where(sel, x, c)
    dv = ub_view(dst, (m, k), (k * s, s), api)
    dv.write(out.astype(src.dtype.np))
    writes = [dv.footprint, tmp_fp]
    if isReuseMask and mk != k:
        cv = ub_view(mask, (m * k,), None, api)
        cv.write(mv.array()[:, :k].reshape(-1).copy())
        writes.append(cv.footprint)
    r = max(1, -(-m * k * s // 256))
    cycles = (cost.vector_cycles("one", r) + 2 * cost.vector_cycles("two", r)) * (2 if mk != k else 1)
    ctx.place("PIPE_V", api, cycles, reads=[sv.footprint, mv.footprint], writes=writes, nbytes=m * k * (2 * s + u),
              elements=m * k)


def Select(dst, *args, **kw):
    """The basic Select, or the bytes-mask Select when the last argument is a SelectWithBytesMaskShapeInfo."""
    if args and isinstance(args[-1], SelectWithBytesMaskShapeInfo):
        return SelectWithBytesMask(dst, *args, **kw)
    return _basic_select(dst, *args, **kw)


_T = T
