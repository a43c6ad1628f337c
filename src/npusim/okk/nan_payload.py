"""Which NaN an fp32 operation returns when both operands are NaN.

The C-model computes in C on x86, where SSE returns the *first* operand's NaN (quieted) when both are
NaN. numpy's answer depends on its loop choice (it may swap the operands of a commutative op with a
scalar or broadcast operand), so the rule is applied explicitly here, and only on arrays where both
operands hold a NaN somewhere, so the NaN-free fast path costs two isnan scans and nothing else.
"""
from __future__ import annotations

import numpy as np

from .fp32 import F32

_QUIET = np.uint32(0x00400000)
_ABS = np.uint32(0x7FFFFFFF)


def quiet(x) -> np.ndarray:
    """x with the quiet bit set (what x86 does to a NaN it returns)."""
    return (np.asarray(x, F32).view(np.uint32) | _QUIET).view(F32)


def keep_first_nan(result: np.ndarray, first, second) -> np.ndarray:
    """``result`` of ``first op second`` with the x86 rule for a NaN pair: quiet(first)."""
    first = np.asarray(first, F32)
    second = np.asarray(second, F32)
    nan_first = np.isnan(first)
    if not nan_first.any():
        return result
    nan_second = np.isnan(second)
    if not nan_second.any():
        return result
    both = nan_first & nan_second
    return np.where(both, quiet(first), result).astype(F32, copy=False)


def div_nan(result: np.ndarray, a, b) -> np.ndarray:
    """The BDC divide is fl(r*r) * a' with r = rsqrt(|b|): for a NaN pair the first operand r*r wins,
    so the result is quiet(|b|) (checked on the C-model for div, div_C and C_div)."""
    a = np.asarray(a, F32)
    b = np.asarray(b, F32)
    nan_b = np.isnan(b)
    if not nan_b.any():
        return result
    nan_a = np.isnan(a)
    if not nan_a.any():
        return result
    absb = (b.view(np.uint32) & _ABS).view(F32)
    return np.where(nan_a & nan_b, quiet(absb), result).astype(F32, copy=False)
