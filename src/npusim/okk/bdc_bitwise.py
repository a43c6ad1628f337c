"""32-bit bitwise and shift BDC functions (TENSOR_ARITH AND/OR/XOR/SHIFT, 2 cycles per block).

Shift semantics as the C-model computes them (differential probes, docs/okk.md, part two): the shift
amount is the sign-extended low 6 bits of the shift operand, n in [-32, 31]; n >= 0 shifts left by n,
n < 0 shifts right by -n (arithmetic: sign-filling; logical: zero-filling), except that n = -32
leaves the value unchanged (an x86 shift count taken mod 32 inside the C-model).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from . import cost
from .bdc_binary import elementwise
from .fp32 import F32
from .types import union_bits

_ARITH = (cost.TENSOR_ARITH, cost.ARITH_SIMPLE)
_I, _U = np.int32, np.uint32


def _i(x):
    return np.ascontiguousarray(x).view(_I)


def _f(x):
    return np.ascontiguousarray(x, _I).view(F32)


def shift(x: np.ndarray, s: np.ndarray, logical: bool) -> np.ndarray:
    """x (int32) shifted by the sign-extended low 6 bits of s (int32)."""
    x = np.asarray(x, _I)
    n = ((np.asarray(s, _I) & 63) ^ 32) - 32
    xu = x.view(_U) if x.ndim else np.array(x).view(_U)
    left = np.left_shift(xu, np.clip(n, 0, 31).astype(_U)).view(_I)
    m = np.clip(-n, 0, 31)
    if logical:
        right = np.right_shift(xu, m.astype(_U)).view(_I)
    else:
        right = np.right_shift(x, m.astype(_I))
    out = np.where(n >= 0, left, right)
    return np.where(n == -32, x, out)


def _bin(api, op):
    def f(dst_addr, src0_addr, src1_addr, shape, dst_stride=None, src0_stride=None, src1_stride=None):
        elementwise(api, shape, dst_addr, {"src0_addr": src0_addr, "src1_addr": src1_addr},
                    {"dst_addr": dst_stride, "src0_addr": src0_stride, "src1_addr": src1_stride},
                    lambda a, b: _f(op(_i(a), _i(b))), _ARITH, _ARITH)
    f.__name__ = f.__qualname__ = api
    return f


def _int_c(api, C, bits=32) -> np.int32:
    if isinstance(C, (float, np.floating)) and bits == 32 and api.endswith(("and_C", "or_C", "xor_C")):
        return np.array([union_bits(C, 32)], _U).view(_I)[0]
    if not isinstance(C, (int, np.integer)) and not hasattr(C, "bits"):
        raise ConstraintError(api, "C", "an integer", C)
    return np.array([union_bits(C, 32)], _U).view(_I)[0]


def _with_c(api, op):
    def f(dst_addr, src_addr, C, shape, dst_stride=None, src_stride=None):
        k = _int_c(api, C)
        elementwise(api, shape, dst_addr, {"src_addr": src_addr},
                    {"dst_addr": dst_stride, "src_addr": src_stride},
                    lambda a: _f(op(_i(a), k)), _ARITH, _ARITH)
    f.__name__ = f.__qualname__ = api
    return f


def _c_with(api, op):
    def f(dst_addr, src_addr, C, shape, dst_stride=None, src_stride=None):
        k = _int_c(api, C)
        elementwise(api, shape, dst_addr, {"src_addr": src_addr},
                    {"dst_addr": dst_stride, "src_addr": src_stride},
                    lambda a: _f(op(np.full(a.shape, k, _I), _i(a))), _ARITH, _ARITH)
    f.__name__ = f.__qualname__ = api
    return f


okk_bdc_32bit_and = _bin("okk_bdc_32bit_and", np.bitwise_and)
okk_bdc_32bit_or = _bin("okk_bdc_32bit_or", np.bitwise_or)
okk_bdc_32bit_xor = _bin("okk_bdc_32bit_xor", np.bitwise_xor)
okk_bdc_32bit_and_C = _with_c("okk_bdc_32bit_and_C", np.bitwise_and)
okk_bdc_32bit_or_C = _with_c("okk_bdc_32bit_or_C", np.bitwise_or)
okk_bdc_32bit_xor_C = _with_c("okk_bdc_32bit_xor_C", np.bitwise_xor)
okk_bdc_32bit_arithmetic_shift = _bin("okk_bdc_32bit_arithmetic_shift", lambda a, s: shift(a, s, False))
okk_bdc_32bit_logical_shift = _bin("okk_bdc_32bit_logical_shift", lambda a, s: shift(a, s, True))
okk_bdc_32bit_arithmetic_shift_C = _with_c("okk_bdc_32bit_arithmetic_shift_C", lambda a, s: shift(a, s, False))
okk_bdc_32bit_logical_shift_C = _with_c("okk_bdc_32bit_logical_shift_C", lambda a, s: shift(a, s, True))
okk_bdc_32bit_C_arithmetic_shift = _c_with("okk_bdc_32bit_C_arithmetic_shift", lambda a, s: shift(a, s, False))
okk_bdc_32bit_C_logical_shift = _c_with("okk_bdc_32bit_C_logical_shift", lambda a, s: shift(a, s, True))

__all__ = [n for n in dir() if n.startswith("okk_")]
