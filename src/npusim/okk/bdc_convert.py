"""BDC data movement and conversion: 32bit_cpy, 32bit_set_C, fp32_to_int32, lookup_int32_to_fp32.

- ``okk_bdc_32bit_cpy``: a raw 32-bit copy (TENSOR_ARITH COPY, 1 cycle per block, strided or not).
- ``okk_bdc_32bit_set_C``: fills with the x32's raw bits (TENSOR_ARITH, 2 cycles per block).
- ``okk_bdc_fp32_to_int32``: truncation toward zero, saturating (reference §4.3; MD_SFU x1);
  NaN saturates by its sign bit (C-model probe).
- ``okk_bdc_lookup_int32_to_fp32``: the int8 table, ``(float) i8(x)``, so it wraps (§4.3; TABLE_LOOKUP x24).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from . import cost, fp32, rules
from .bdc_binary import elementwise
from .bdc_fp32_unary import _Call
from .fp32 import F32
from .types import union_bits


def okk_bdc_32bit_cpy(dst_addr, src_addr, shape, dst_stride=None, src_stride=None) -> None:
    """dst = src, bit for bit."""
    elementwise("okk_bdc_32bit_cpy", shape, dst_addr, {"src_addr": src_addr},
                {"dst_addr": dst_stride, "src_addr": src_stride}, lambda x: np.array(x, copy=True),
                (cost.TENSOR_ARITH, cost.ARITH_COPY), (cost.TENSOR_ARITH, cost.ARITH_COPY))


def okk_bdc_32bit_set_C(dst_addr, C, shape, dst_stride=None) -> None:
    """dst = C (an x32, raw int bits or fp32 float)."""
    api = "okk_bdc_32bit_set_C"
    try:
        v = np.array([union_bits(C, 32)], np.uint32).view(F32)[0]
    except ConstraintError:
        raise ConstraintError(api, "C", "an x32 (or raw int bits / fp32 float)", C)
    c = _Call(api, shape)
    dst, = c.operands(4, strides={"dst_addr": dst_stride}, dst_addr=dst_addr)
    dst.write(np.full(c.shape.tuple(), v, F32))
    c.emit(cost.TENSOR_ARITH, cost.ARITH_SIMPLE, [], [dst])


def okk_bdc_fp32_to_int32(dst_addr, src_addr, shape) -> None:
    """dst(int32) = trunc_sat(src(fp32)), 128-byte aligned layout."""
    c = _Call("okk_bdc_fp32_to_int32", shape)
    dst, src = c.operands(128, dst_addr=dst_addr, src_addr=src_addr)
    x = fp32.daz(src.read())
    r = fp32.fp32_to_int32(x)
    nan = np.isnan(x)
    if nan.any():   # the C-model saturates NaN by its sign bit: +NaN -> INT32_MAX, -NaN -> INT32_MIN
        r[nan] = np.where(np.signbit(x[nan]), np.iinfo(np.int32).min, np.iinfo(np.int32).max)
    dst.write(r.view(F32))
    c.emit(cost.MD_SFU, cost.SFU_SIMPLE, [src], [dst])


def okk_bdc_lookup_int32_to_fp32(dst_addr, src_addr, shape) -> None:
    """dst(fp32) = (float) i8(src(int32)): the low byte read as int8 (wraps outside [-128, 127])."""
    c = _Call("okk_bdc_lookup_int32_to_fp32", shape)
    dst, src = c.operands(128, dst_addr=dst_addr, src_addr=src_addr)
    si = np.asarray(src.read()).view(np.int32)
    # data-range remark (reference §4.3: the docs say the input is in [-128, 127]); strict mode reports it
    rules.data_range(c.api, "src_addr", si, -128, 127, "the elements of the source tensor are in [-128, 127]")
    dst.write(fp32.lookup_int8(si))
    c.emit(cost.TABLE_LOOKUP, cost.LOOKUP, [src], [dst])


__all__ = [n for n in dir() if n.startswith("okk_")]
