"""Compare (to a bit mask) and Select (by a bit mask), count forms.

Compare writes one bit per element, LSB first, into a uint8 dst; Select takes src0 where the bit is 1
and src1 (a tensor, or a scalar in VSEL_TENSOR_SCALAR_MODE) where it is 0 (ascendc.md §3).
"""
from __future__ import annotations

import enum
import math

import numpy as np

from ..core.dtypes import cast
from ..core.errors import ConstraintError, UnsupportedError
from ..core.view import TensorView
from . import cost
from . import dtypes as T
from .context import current
from .rules import check_count, check_dtypes, check_vector_tensor

_ALL = (2201, 2002, 1001, 3002)
_CMP_TYPES = {a: (T.half, T.float) for a in _ALL}


class CMPMODE(enum.Enum):
    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


class SELMODE(enum.Enum):
    VSEL_CMPMASK_SPR = 0
    VSEL_TENSOR_SCALAR_MODE = 1
    VSEL_TENSOR_TENSOR_MODE = 2


_OPS = {CMPMODE.LT: np.less, CMPMODE.GT: np.greater, CMPMODE.EQ: np.equal, CMPMODE.LE: np.less_equal,
        CMPMODE.GE: np.greater_equal, CMPMODE.NE: np.not_equal}


def _flat(t, n, api):
    return TensorView(t.ctx.ub, t.addr, (n,), None, t.dtype, api=api)


def _cmp_cycles(dtype, r: int) -> int:
    """VCMPV fits (costs §3): 2r + 0.03, plus an unaligned-output penalty when r*E/8 bytes % 32 != 0."""
    if dtype == T.half:
        p = (5 if r < 16 else 6) if r % 2 else 0
    else:
        p = 5 if r % 4 else 0
    return math.ceil(2 * r + 0.03 + p)


def Compare(dst, src0, src1, cmpMode: CMPMODE, count) -> None:
    """``Compare(dst, src0, src1, cmpMode, count)``: dst (uint8) bit i = src0[i] cmp src1[i]."""
    api = "Compare"
    ctx = current()
    for name, t in (("dstLocal", dst), ("src0Local", src0), ("src1Local", src1)):
        check_vector_tensor(api, name, t)
    check_dtypes(api, "src0Local", src0, _CMP_TYPES.get(ctx.soc.arch, ()), ctx.soc)
    if src1.dtype != src0.dtype:
        raise ConstraintError(api, "src1Local", "src0 and src1 have the same dtype", src1.dtype)
    if dst.dtype not in (T.uint8_t, T.int8_t):
        raise ConstraintError(api, "dstLocal", "a uint8_t bit-mask tensor", dst.dtype)
    if not isinstance(cmpMode, CMPMODE):
        raise ConstraintError(api, "cmpMode", "a CMPMODE", cmpMode)
    n = check_count(api, count)
    if n * src0.dtype.itemsize % 256:
        raise ConstraintError(api, "count", "count * sizeof(T) is a multiple of 256 bytes (whole repeats)", n)
    for name, t in (("src0Local", src0), ("src1Local", src1)):
        if n > t.size:
            raise ConstraintError(api, name, f"count <= the LocalTensor's {t.size} elements (check instr failed)", n)
    nbytes = n // 8
    if nbytes > dst.size * dst.dtype.itemsize:
        raise ConstraintError(api, "dstLocal", f"count / 8 bytes fit in dst ({dst.size} bytes)", nbytes)
    if n == 0:
        return ctx.place("PIPE_V", api, 0)
    a, b = _flat(src0, n, api), _flat(src1, n, api)
    d = TensorView(ctx.ub, dst.addr, (nbytes,), None, "uint8", api=api)
    bits = _OPS[cmpMode](a.read(api), b.read(api))
    d.write(np.packbits(bits, bitorder="little"))
    r = n // (256 // src0.dtype.itemsize)
    ctx.place("PIPE_V", api, _cmp_cycles(src0.dtype, r), reads=[a.footprint, b.footprint], writes=[d.footprint],
              nbytes=n * 2 * src0.dtype.itemsize + nbytes, elements=n)


def Select(dst, selMask, src0, src1, selMode: SELMODE, count) -> None:
    """``Select(dst, selMask, src0, src1, selMode, count)``: bit 1 takes src0, bit 0 takes src1 (a tensor in
    VSEL_TENSOR_TENSOR_MODE, a scalar in VSEL_TENSOR_SCALAR_MODE)."""
    api = "Select"
    ctx = current()
    check_vector_tensor(api, "dstLocal", dst)
    check_vector_tensor(api, "selMask", selMask)
    check_vector_tensor(api, "src0Local", src0)
    check_dtypes(api, "src0Local", src0, _CMP_TYPES.get(ctx.soc.arch, ()), ctx.soc)
    if not isinstance(selMode, SELMODE):
        raise ConstraintError(api, "selMode", "a SELMODE", selMode)
    if selMode is SELMODE.VSEL_CMPMASK_SPR:
        raise UnsupportedError(api, "VSEL_CMPMASK_SPR", "npusim does not keep the compare-mask register")
    if dst.dtype != src0.dtype:
        raise ConstraintError(api, "dstLocal", "dst has src0's dtype", dst.dtype)
    n = check_count(api, count)
    for name, t in (("dstLocal", dst), ("src0Local", src0)):
        if n > t.size:
            raise ConstraintError(api, name, f"count <= the LocalTensor's {t.size} elements (check instr failed)", n)
    mbytes = -(-n // 8)
    if mbytes > selMask.size * selMask.dtype.itemsize:
        raise ConstraintError(api, "selMask", f"count / 8 bytes fit in selMask", mbytes)
    if n == 0:
        return ctx.place("PIPE_V", api, 0)
    m = TensorView(ctx.ub, selMask.addr, (mbytes,), None, "uint8", api=api)
    a = _flat(src0, n, api)
    reads = [m.footprint, a.footprint]
    if selMode is SELMODE.VSEL_TENSOR_TENSOR_MODE:
        check_vector_tensor(api, "src1Local", src1)
        if src1.dtype != src0.dtype or n > src1.size:
            raise ConstraintError(api, "src1Local", "src0's dtype and >= count elements", (src1.dtype, src1.size))
        b = _flat(src1, n, api)
        reads.append(b.footprint)
        other = b.read(api)
    else:
        other = cast(np.asarray([src1], np.float64), src0.dtype)[0]
    bits = np.unpackbits(m.read(api), bitorder="little")[:n].astype(bool)
    out = _flat(dst, n, api)
    out.write(np.where(bits, a.read(api), other))
    r = -(-n // (256 // src0.dtype.itemsize))
    ctx.place("PIPE_V", api, cost.vector_cycles("two", r), reads=reads, writes=[out.footprint],
              nbytes=n * 3 * src0.dtype.itemsize, elements=n)
