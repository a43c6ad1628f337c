"""CompareScalar (the vendor's newer name: Compares): each element of src0 against one scalar, one bit out.

    CompareScalar(dst, src0, src1Scalar, cmpMode, count)
    CompareScalar(dst, src0, src1Scalar, cmpMode, mask, repeatTime, UnaryRepeatParams)

Vendor page Compares.md (asc-devkit 比较与选择/). Bit i of the uint8 dst (LSB first) is ``src0[i] cmp
scalar``; the scalar converts to T as a C++ assignment would. Count form: only whole 256-byte blocks take
part, the tail's dst bits are left as they were (the page: "未对齐部分元素不参与计算"). Level-0 form: repeat r
reads E = 256/sizeof(T) elements with the src strides and writes its E bits (E/8 bytes) at ``dst + r·E/8``
[A: as Compare's level-0 form]; the mask is reserved and ignored on A2/A3 (the page: "保留参数，设置无效"),
honoured elsewhere. Not on Atlas training (910A). Cost: Compare's VCMPV fit.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError, UnsupportedError
from ..core.view import TensorView
from . import dtypes as T
from .compare_select import _OPS, CMPMODE, _check_int32_eq, _cmp_cycles
from .context import current
from .repeat import Operand, _read, check_footprint, resolve_mask
from .rules import check_count, check_dtypes, check_repeat, check_vector_tensor
from .repeat import UnaryRepeatParams
from .tensor import scalar_to

_TYPES = {2201: (T.half, T.float, T.int32_t), 2002: (T.half, T.float), 3002: (T.half, T.float)}


def CompareScalar(dst, src0, src1Scalar, cmpMode, *args, isSetMask: bool = True) -> None:
    api = "CompareScalar"
    ctx = current()
    if ctx.soc.arch not in _TYPES:
        raise UnsupportedError(api, f"{api} on {ctx.soc.name}", "not on Atlas training products (Compares.md)")
    check_vector_tensor(api, "dstLocal", dst)
    check_vector_tensor(api, "src0Local", src0)
    check_dtypes(api, "src0Local", src0, _TYPES[ctx.soc.arch], ctx.soc)
    if dst.dtype not in (T.uint8_t, T.int8_t):
        raise ConstraintError(api, "dstLocal", "a uint8_t bit-mask tensor", dst.dtype)
    if not isinstance(cmpMode, CMPMODE):
        raise ConstraintError(api, "cmpMode", "a CMPMODE", cmpMode)
    _check_int32_eq(api, src0, cmpMode)
    from .args import scalar as _scalar_arg
    scalar = scalar_to(_scalar_arg(api, "src1Scalar", src1Scalar, src0.dtype), src0.dtype)[0]
    s = src0.dtype.itemsize
    E = 256 // s
    if len(args) == 1:
        n = check_count(api, args[0])
        if n > src0.size:
            raise ConstraintError(api, "src0Local", f"count <= the LocalTensor's {src0.size} elements "
                                  "(check instr failed)", n)
        n -= n % E
        if n // 8 > dst.size * dst.dtype.itemsize:
            raise ConstraintError(api, "dstLocal", f"count / 8 bytes fit in dst ({dst.size} bytes)", n // 8)
        if n == 0:
            return ctx.place("PIPE_V", api, 0)
        a = TensorView(ctx.ub, src0.addr, (n,), None, src0.dtype, api=api)
        bits = _OPS[cmpMode](a.read(api), scalar)
        R, reads = n // E, [a.footprint]
    elif len(args) == 3:
        mask, repeat, p = args
        if not isinstance(p, UnaryRepeatParams):
            raise ConstraintError(api, "repeatParams", "a UnaryRepeatParams", p)
        R = check_repeat(api, repeat)
        lanes, _ = resolve_mask(api, ctx, mask, isSetMask, E, s)
        if ctx.soc.arch == 2201:
            lanes = None                       # reserved on A2/A3: every lane takes part
        if ctx.counter_mode:
            raise ConstraintError(api, "mask", f"{api}'s level-0 form runs in Normal mode here", "counter")
        if R == 0 or lanes is False:
            return ctx.place("PIPE_V", api, 0)
        op = Operand("src0Local", src0, p.srcBlkStride, p.srcRepStride)
        op.shape_for(E)
        check_footprint(api, op, R, E, E, lanes)
        if R * E // 8 > dst.size * dst.dtype.itemsize:
            raise ConstraintError(api, "dstLocal", f"repeatTime * {E // 8} bytes fit in dst ({dst.size} bytes)",
                                  R * E // 8)
        sv = ctx.view(src0.addr, (R, op.nblk, op.bpb), (p.srcRepStride * 32, p.srcBlkStride * 32, s), src0.dtype,
                      api)
        active = None if lanes is None else np.broadcast_to(lanes, (R, E))
        x = _read(sv, None if active is None else active.reshape(R, op.nblk, op.bpb), api).reshape(R, E)
        bits = _OPS[cmpMode](x, scalar)
        if active is not None:
            bits = bits & active
        bits, reads = bits.reshape(-1), [sv.footprint]
    else:
        raise ConstraintError(api, "arguments", "(dst, src0, scalar, cmpMode, count) or (dst, src0, scalar, "
                              "cmpMode, mask, repeatTime, UnaryRepeatParams)", len(args) + 4)
    packed = np.packbits(bits, bitorder="little")
    d = TensorView(ctx.ub, dst.addr, (packed.size,), None, T.uint8_t, api=api)
    d.write(packed)
    ctx.place("PIPE_V", api, _cmp_cycles(src0.dtype, R), reads=reads, writes=[d.footprint],
              nbytes=R * 256 + packed.size, elements=R * E)


Compares = CompareScalar
