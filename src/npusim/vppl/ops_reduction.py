"""Reduction operators (seed 003, リダクション系演算子): combine a vector's elements into one integer.
The target is the instruction's work area ("ターゲットベクタを作業領域として使う"): it must come from
alloc_vector() and is undefined (poison) afterwards."""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from .ops_common import low_bits, typed
from .types import wrap_int32

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def check_work(row, t) -> None:
    if not t.allocated:
        raise ConstraintError(row.name, "target", "reduction operators use the target as work space: it "
                              "must be a vector allocated with alloc_vector()", t.name)


def _to_integer(row, total: int) -> int:
    """A 32-bit accumulator: signed suffixes saturate, unsigned ones wrap (the add$ rule)."""
    if row.saturate:
        return max(INT32_MIN, min(INT32_MAX, total))
    return wrap_int32(total)


def _elems(row, v, param):
    return typed(v, row, param)


def sum_(m, row, t, v, out):
    check_work(row, t)
    a = _elems(row, v, "vector")
    total = int(a.sum(dtype=np.int64))          # exact below 2**31 elements of 32 bits
    out.value = _to_integer(row, total)
    t.clobber()


def prod(m, row, t, v1, v2, out):
    check_work(row, t)
    if v1.length != v2.length:
        raise ConstraintError(row.name, "vector2", "both vectors have the same length",
                              f"{v1.name}[{v1.length}] vs {v2.name}[{v2.length}]")
    a, b = _elems(row, v1, "vector1"), _elems(row, v2, "vector2")
    if a.dtype.itemsize == 4:      # 32 x 32-bit products overflow an int64 sum: exact Python integers
        total = int(np.dot(a.astype(object), b.astype(object)))
    else:
        total = int(np.dot(a.astype(np.int64), b.astype(np.int64)))
    out.value = _to_integer(row, total)
    t.clobber()


def r_max(m, row, t, v, out):
    check_work(row, t)
    out.value = wrap_int32(int(_elems(row, v, "vector").max()))
    t.clobber()


def r_min(m, row, t, v, out):
    check_work(row, t)
    out.value = wrap_int32(int(_elems(row, v, "vector").min()))
    t.clobber()


def count_if(m, row, t, v, cmp, out):
    check_work(row, t)
    a = _elems(row, v, "vector")
    out.value = int(np.count_nonzero(a == low_bits(cmp, a.dtype)))
    t.clobber()


def count_over(m, row, t, v, cmp, out):
    check_work(row, t)
    a = _elems(row, v, "vector")
    c = low_bits(cmp, a.dtype)
    out.value = int(np.count_nonzero(a > c if m.readings.compare == "strict" else a >= c))
    t.clobber()


def count_under(m, row, t, v, cmp, out):
    check_work(row, t)
    a = _elems(row, v, "vector")
    c = low_bits(cmp, a.dtype)
    out.value = int(np.count_nonzero(a < c if m.readings.compare == "strict" else a <= c))
    t.clobber()
