"""Compare (to a bit mask) and Select (by a bit mask), count forms.

Compare writes one bit per element, LSB first, into a uint8 dst; Select takes src0 where the bit is 1
and src1 (a tensor, or a scalar in VSEL_TENSOR_SCALAR_MODE) where it is 0 (ascendc.md §3).
"""
from __future__ import annotations

import enum
import math

import numpy as np

from ..core.dtypes import cast
from ..core.errors import ConstraintError
from ..core.view import TensorView
from . import cost
from . import dtypes as T
from .context import current
from .repeat import BinaryRepeatParams, Operand, check_footprint, resolve_mask
from .tensor import LocalTensor
from .rules import check_count, check_dtypes, check_repeat, check_vector_tensor
from .select_level0 import select_level0
from . import args as _args
from .tensor import scalar_to

_ALL = (2201, 2002, 1001, 3002)
_SEL_TYPES = {a: (T.half, T.float) for a in _ALL}
# Compare.md: A2/A3 also compare int32_t, with CMPMODE::EQ only.
_CMP_TYPES = {**_SEL_TYPES, 2201: (T.half, T.float, T.int32_t)}


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
    """VCMPV fits (costs §3): 2r + 0.03, plus an unaligned-output penalty when r*E/8 bytes % 32 != 0;
    rounded to the nearest cycle like every fit in cost.py."""
    if dtype == T.half:
        p = (5 if r < 16 else 6) if r % 2 else 0
    else:
        p = 5 if r % 4 else 0
    return math.floor(2 * r + 0.03 + p + 0.5)


def Compare(*args, isSetMask: bool = True) -> None:
    """Three prototypes (ascendc.md §3):
    ``Compare(dst, src0, src1, cmpMode, count)``: dst (uint8) bit i = src0[i] cmp src1[i];
    ``Compare(dst, src0, src1, cmpMode, mask, repeatTime, BinaryRepeatParams)``: level 0, one E-bit group
    (E / 8 bytes) per repeat written contiguously to dst, masked-off lanes give 0 bits;
    ``Compare(src0, src1, cmpMode, mask, BinaryRepeatParams)``: one repeat into the compare-mask register
    (``VSEL_CMPMASK_SPR``; read back with ``GetCmpMask``, used by ``Select`` mode 0)."""
    if len(args) == 5 and isinstance(args[2], CMPMODE):
        return _compare_to_register(*args, isSetMask=isSetMask)
    if len(args) == 7:
        return _compare_level0(*args, isSetMask=isSetMask)
    if len(args) != 5:
        raise ConstraintError("Compare", "arguments", "(dst, src0, src1, cmpMode, count), (dst, src0, src1, "
                              "cmpMode, mask, repeatTime, BinaryRepeatParams) or (src0, src1, cmpMode, mask, "
                              "BinaryRepeatParams)", len(args))
    dst, src0, src1, cmpMode, count = args
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
    _check_int32_eq(api, src0, cmpMode)
    n = check_count(api, count)
    for name, t in (("src0Local", src0), ("src1Local", src1)):
        if n > t.size:
            raise ConstraintError(api, name, f"count <= the LocalTensor's {t.size} elements (check instr failed)", n)
    # Compare.md (count): "未对齐部分元素不参与计算，仅完整对齐块有效" -- only whole 256-byte blocks are
    # compared; the tail's elements take no part and their dst bits are left as they were.
    n -= n % (256 // src0.dtype.itemsize)
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


def _check_int32_eq(api, src0, cmpMode) -> None:
    if src0.dtype == T.int32_t and cmpMode is not CMPMODE.EQ:
        raise ConstraintError(api, "cmpMode", "int32_t operands compare with CMPMODE::EQ only", cmpMode.name)


def Select(dst, selMask, src0, src1, selMode: SELMODE, *args, isSetMask: bool = True) -> None:
    """``Select(dst, selMask, src0, src1, selMode, count)``: bit 1 takes src0, bit 0 takes src1 (a tensor in
    VSEL_TENSOR_TENSOR_MODE, a scalar in VSEL_TENSOR_SCALAR_MODE);
    ``Select(dst, selMask, src0, src1, selMode, mask, repeatTime, BinaryRepeatParams)``: level 0
    (select_level0.py)."""
    api = "Select"
    ctx = current()
    check_vector_tensor(api, "dstLocal", dst)
    check_vector_tensor(api, "selMask", selMask)
    check_vector_tensor(api, "src0Local", src0)
    check_dtypes(api, "src0Local", src0, _SEL_TYPES.get(ctx.soc.arch, ()), ctx.soc)
    if not isinstance(selMode, SELMODE):
        raise ConstraintError(api, "selMode", "a SELMODE", selMode)
    if ctx.soc.arch == 1001 and selMode is not SELMODE.VSEL_CMPMASK_SPR:     # Select.md: 仅支持模式0
        raise ConstraintError(api, "selMode", f"VSEL_CMPMASK_SPR (mode 0) only on {ctx.soc.name} (Atlas "
                              "training)", selMode.name)
    if dst.dtype != src0.dtype:
        raise ConstraintError(api, "dstLocal", "dst has src0's dtype", dst.dtype)
    if len(args) == 3:
        scalar = selMode is SELMODE.VSEL_TENSOR_SCALAR_MODE
        if not scalar:
            check_vector_tensor(api, "src1Local", src1)
            if src1.dtype != src0.dtype:
                raise ConstraintError(api, "src1Local", "src0's dtype", src1.dtype)
        elif isinstance(src1, LocalTensor):
            raise ConstraintError(api, "src1", "a scalar of type T in VSEL_TENSOR_SCALAR_MODE", "LocalTensor")
        return select_level0(dst, selMask, src0, src1, selMode is SELMODE.VSEL_CMPMASK_SPR, scalar, *args,
                             isSetMask)
    if len(args) != 1:
        raise ConstraintError(api, "arguments", "(dst, selMask, src0, src1, selMode, count) or (dst, selMask, src0, "
                              "src1, selMode, mask, repeatTime, BinaryRepeatParams)", len(args) + 5)
    n = check_count(api, args[0])
    for name, t in (("dstLocal", dst), ("src0Local", src0)):
        if n > t.size:
            raise ConstraintError(api, name, f"count <= the LocalTensor's {t.size} elements (check instr failed)", n)
    mbytes = -(-n // 8)
    if selMode is SELMODE.VSEL_CMPMASK_SPR:
        mbytes = min(mbytes, 256 // src0.dtype.itemsize // 8)     # one repeat's bits, reused by every repeat
    if mbytes > selMask.size * selMask.dtype.itemsize:
        raise ConstraintError(api, "selMask", f"count / 8 bytes fit in selMask", mbytes)
    if n == 0:
        return ctx.place("PIPE_V", api, 0)
    m = TensorView(ctx.ub, selMask.addr, (mbytes,), None, "uint8", api=api)
    a = _flat(src0, n, api)
    reads = [m.footprint, a.footprint]
    if selMode is SELMODE.VSEL_TENSOR_SCALAR_MODE and isinstance(src1, LocalTensor):
        raise ConstraintError(api, "src1", "a scalar of type T in VSEL_TENSOR_SCALAR_MODE", "LocalTensor")
    if selMode is not SELMODE.VSEL_TENSOR_SCALAR_MODE and not isinstance(src1, (int, float)):
        check_vector_tensor(api, "src1Local", src1)
        if src1.dtype != src0.dtype or n > src1.size:
            raise ConstraintError(api, "src1Local", "src0's dtype and >= count elements", (src1.dtype, src1.size))
        b = _flat(src1, n, api)
        reads.append(b.footprint)
        other = b.read(api)
    elif selMode is SELMODE.VSEL_CMPMASK_SPR:
        raise ConstraintError(api, "selMode", "VSEL_CMPMASK_SPR selects between two tensors (src1 a LocalTensor)",
                              type(src1).__name__)
    else:
        other = scalar_to(_args.scalar(api, "src1", src1, src0.dtype), src0.dtype)[0]
    if selMode is SELMODE.VSEL_CMPMASK_SPR:
        # Mode 0: the first E bits of selMask (E = 256 / sizeof(T), one repeat's worth) are loaded into the
        # compare-mask register and every repeat selects with those same bits (ascendc.md §3, Select).
        bits = np.resize(np.unpackbits(m.read(api), bitorder="little").astype(bool), n)
        ctx.cmpmask = np.zeros(16, np.uint8)
        ctx.cmpmask[:mbytes] = m.read(api)
    else:
        bits = np.unpackbits(m.read(api), bitorder="little")[:n].astype(bool)
    out = _flat(dst, n, api)
    out.write(np.where(bits, a.read(api), other))
    r = -(-n // (256 // src0.dtype.itemsize))
    ctx.place("PIPE_V", api, cost.vector_cycles("two", r), reads=reads, writes=[out.footprint],
              nbytes=n * 3 * src0.dtype.itemsize, elements=n)


# ---- level 0 and the compare-mask register ----

def _check_cmp_operands(api, ctx, src0, src1, cmpMode):
    for name, t in (("src0Local", src0), ("src1Local", src1)):
        check_vector_tensor(api, name, t)
    check_dtypes(api, "src0Local", src0, _CMP_TYPES.get(ctx.soc.arch, ()), ctx.soc)
    if src1.dtype != src0.dtype:
        raise ConstraintError(api, "src1Local", "src0 and src1 have the same dtype", src1.dtype)
    if not isinstance(cmpMode, CMPMODE):
        raise ConstraintError(api, "cmpMode", "a CMPMODE", cmpMode)
    _check_int32_eq(api, src0, cmpMode)


def _compare_bits(api, ctx, src0, src1, cmpMode, mask, R, p, isSetMask):
    """(R, E) comparison bits of the level-0 geometry, masked-off lanes False, and the read footprints."""
    if not isinstance(p, BinaryRepeatParams):
        raise ConstraintError(api, "repeatParams", "a BinaryRepeatParams", p)
    E = 256 // src0.dtype.itemsize
    lanes, N = resolve_mask(api, ctx, mask, isSetMask, E, src0.dtype.itemsize)
    if N is not None:
        raise ConstraintError(api, "mask", "Compare's level-0 form runs in Normal mode (SetMaskNorm)", "counter")
    if lanes is False:          # an all-zero mask in Normal mode: the instruction is a NOP
        return None, [], E
    ops = [Operand("src0Local", src0, p.src0BlkStride, p.src0RepStride),
           Operand("src1Local", src1, p.src1BlkStride, p.src1RepStride)]
    vals, reads = [], []
    for op in ops:
        op.shape_for(E)
        check_footprint(api, op, R, E, E, lanes)
        v = ctx.view(op.t.addr, (R, op.nblk, op.bpb), (op.rep * 32, op.blk * 32, op.s), op.t.dtype, api)
        vals.append(v.read(api).reshape(R, E))
        reads.append(v.footprint)
    bits = _OPS[cmpMode](vals[0], vals[1])
    if lanes is not None:                     # None: every lane active
        bits &= lanes
    return bits, reads, E


def _compare_level0(dst, src0, src1, cmpMode, mask, repeatTime, repeatParams, isSetMask=True):
    api = "Compare"
    ctx = current()
    check_vector_tensor(api, "dstLocal", dst)
    _check_cmp_operands(api, ctx, src0, src1, cmpMode)
    if dst.dtype not in (T.uint8_t, T.int8_t):
        raise ConstraintError(api, "dstLocal", "a uint8_t bit-mask tensor", dst.dtype)
    R = check_repeat(api, repeatTime)
    if R == 0:
        resolve_mask(api, ctx, mask, isSetMask, 256 // src0.dtype.itemsize, src0.dtype.itemsize)
        return ctx.place("PIPE_V", api, 0)
    bits, reads, E = _compare_bits(api, ctx, src0, src1, cmpMode, mask, R, repeatParams, isSetMask)
    if bits is None:
        return ctx.place("PIPE_V", api, 0)
    nbytes = R * E // 8
    if nbytes > dst.size:
        raise ConstraintError(api, "dstLocal", f"repeatTime * {E // 8} bytes of bits fit in dst (check instr "
                              f"failed)", (nbytes, dst.size))
    d = TensorView(ctx.ub, dst.addr, (nbytes,), None, "uint8", api=api)
    d.write(np.packbits(bits.reshape(-1), bitorder="little"))
    ctx.place("PIPE_V", api, _cmp_cycles(src0.dtype, R), reads=reads, writes=[d.footprint],
              nbytes=R * E * 2 * src0.dtype.itemsize + nbytes, elements=R * E, args={"repeats": R})


def _compare_to_register(src0, src1, cmpMode, mask, repeatParams, isSetMask=True):
    api = "Compare"
    ctx = current()
    _check_cmp_operands(api, ctx, src0, src1, cmpMode)
    bits, reads, E = _compare_bits(api, ctx, src0, src1, cmpMode, mask, 1, repeatParams, isSetMask)
    if bits is None:
        return ctx.place("PIPE_V", api, 0)
    reg = np.zeros(16, np.uint8)
    reg[:E // 8] = np.packbits(bits.reshape(-1), bitorder="little")
    ctx.cmpmask = reg
    ctx.place("PIPE_V", api, _cmp_cycles(src0.dtype, 1), reads=reads, nbytes=E * 2 * src0.dtype.itemsize,
              elements=E, args={"repeats": 1, "to": "CMPMASK"})


def GetCmpMask(dst) -> None:
    """Store the 128-bit compare-mask register (16 bytes) to ``dst``."""
    api = "GetCmpMask"
    ctx = current()
    check_vector_tensor(api, "dstLocal", dst)
    if dst.size * dst.dtype.itemsize < 16:
        raise ConstraintError(api, "dstLocal", "at least 16 bytes (the 128-bit register)", dst.size)
    d = TensorView(ctx.ub, dst.addr, (16,), None, "uint8", api=api)
    d.write(getattr(ctx, "cmpmask", np.zeros(16, np.uint8)))
    ctx.place("PIPE_V", api, cost.MASK_CYCLES, writes=[d.footprint], nbytes=16)


def SetCmpMask(src) -> None:
    """Load the 128-bit compare-mask register from the first 16 bytes of ``src``."""
    api = "SetCmpMask"
    ctx = current()
    check_vector_tensor(api, "srcLocal", src)
    if src.size * src.dtype.itemsize < 16:
        raise ConstraintError(api, "srcLocal", "at least 16 bytes (the 128-bit register)", src.size)
    m = TensorView(ctx.ub, src.addr, (16,), None, "uint8", api=api)
    ctx.cmpmask = m.read(api).copy()
    ctx.place("PIPE_V", api, cost.MASK_CYCLES, reads=[m.footprint], nbytes=16)
