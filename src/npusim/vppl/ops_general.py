"""General vector operators (seed 003, 一般的なベクトルの演算処理): whole-vector operations that
rewrite the target in place."""
from __future__ import annotations

import numpy as np

from ..core.dtypes import cast
from ..core.errors import ConstraintError
from . import spec
from .ops_common import low_bits, nonneg, same_length, store, typed, wide_dtype


def zeros(m, row, t):
    t.a[...] = 0


def ones(m, row, t):
    typed(t, row, "target")[...] = 1


def abs_(m, row, t):
    a = typed(t, row, "target")
    if m.readings.abs == "saturate":
        lo = np.iinfo(a.dtype).min
        a[a == lo] = lo + 1                      # abs(min) -> max
    np.negative(a, out=a, where=a < 0)          # two's complement: abs(min) stays min (wrap)


def bit_not(m, row, t):
    np.invert(t.a, out=t.a)


def minimum(m, row, t, v):
    same_length(t, v, row, "vector")
    a = typed(t, row, "target")
    np.minimum(a, typed(v, row, "vector"), out=a)


def maximum(m, row, t, v):
    same_length(t, v, row, "vector")
    a = typed(t, row, "target")
    np.maximum(a, typed(v, row, "vector"), out=a)


_UFUNC = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def _arith(row, a, b, m=None):
    f = _UFUNC[row.arith]
    if row.arith == "mul" and row.saturate and m is not None and m.readings.mul == "q15":
        frac = a.dtype.itemsize * 8 - 1           # Q(bits-1) product: (a*b) >> (bits-1), saturated
        wide = np.multiply(a, b, dtype=np.int64)
        np.right_shift(wide, frac, out=wide)
        store(a, wide, True)
        return
    if row.saturate:
        store(a, f(a, b, dtype=wide_dtype(a.dtype)), True)
    else:
        f(a, b, out=a)                             # numpy integer arithmetic wraps modulo 2**bits


def arith(m, row, t, v):
    same_length(t, v, row, "vector")
    _arith(row, typed(t, row, "target"), typed(v, row, "vector"), m)


def e_arith(m, row, t, work, s):
    """target ⊕= scalar: the scalar is broadcast into the work vector first (its side effect)."""
    dt = row.dt
    if work.a.nbytes % dt.itemsize:
        raise ConstraintError(row.name, "work", f"the work vector holds whole {dt.itemsize * 8}-bit elements",
                              work.a.nbytes)
    w = work.a.view(dt)
    w[...] = low_bits(s, dt)
    work.written()
    _arith(row, typed(t, row, "target"), w[0], m)


def e_set(m, row, t, s):
    a = typed(t, row, "target")
    a[...] = low_bits(s, a.dtype)


def _logical_view(t, row):
    a = typed(t, row, "target")
    return a.view(_UNSIGNED[a.dtype.itemsize])


_UNSIGNED = {n: np.dtype(f"u{n}") for n in (1, 2, 4, 8)}      # built once: dtype("u2") parses a string


def element_shift_left(m, row, t, n):
    nonneg(row, "amount", n)
    u = _logical_view(t, row)
    if n >= u.dtype.itemsize * 8:
        u[...] = 0                                  # every bit shifted out (numpy would mod the count)
    else:
        np.left_shift(u, n, out=u)


def element_shift_right(m, row, t, n):
    nonneg(row, "amount", n)
    u = _logical_view(t, row)
    if n >= u.dtype.itemsize * 8:
        u[...] = 0
    else:
        np.right_shift(u, n, out=u)


def _bytes(v) -> np.ndarray:
    return v.a.view(np.uint8)


def _shr_bits(c: np.ndarray, shift: int, n: int) -> np.ndarray:
    """Low ``n`` bytes of the little-endian bit string ``c`` shifted right by ``shift`` bits."""
    q, r = divmod(shift, 8)
    c = np.concatenate([c, np.zeros(q + n + 1 - c.size if q + n + 1 > c.size else 0, np.uint8)])   # zeros above
    lo = c[q:q + n].astype(np.uint16)
    if r == 0:
        return lo.astype(np.uint8)
    hi = c[q + 1:q + n + 1].astype(np.uint16)
    return ((lo >> r) | (hi << (8 - r))).astype(np.uint8)


def _shift_checks(row, t, v1, v2, n):
    nonneg(row, "amount", n, spec.SHIFT_MAX_BITS)
    for p, v in (("vector1", v1), ("vector2", v2)):
        if v.nbytes != t.nbytes:
            raise ConstraintError(row.name, p, "the vector is as long (in bytes) as the target",
                                  f"{v.name}: {v.nbytes} B vs {t.name}: {t.nbytes} B")


def shift_up(m, row, t, v1, v2, n):
    """target = v1 << n over the whole vector (element 0 at the least significant end); the vacated low
    bits take v2's top bits: the high half of (v1:v2) << n."""
    _shift_checks(row, t, v1, v2, n)
    nb = t.nbytes
    pad = (spec.SHIFT_MAX_BITS + 8) // 8          # zeros below v2, so that a shift past v2 still works
    c = np.concatenate([np.zeros(pad, np.uint8), _bytes(v2), _bytes(v1)])
    _bytes(t)[...] = _shr_bits(c, (pad + nb) * 8 - n, nb)


def shift_down(m, row, t, v1, v2, n):
    """target = v1 >> n over the whole vector; the vacated high bits take v2's bottom bits."""
    _shift_checks(row, t, v1, v2, n)
    nb = t.nbytes
    c = np.concatenate([_bytes(v1), _bytes(v2)])
    _bytes(t)[...] = _shr_bits(c, n, nb)


def convert(m, row, t, v):
    """Element i of the argument (source type) -> element i of the target (destination type): widening
    is sign/zero extension, narrowing saturates to the destination's range."""
    src_dt, dst_dt = row.src_dt, row.dt
    if v.a.dtype.itemsize != src_dt.itemsize:
        raise ConstraintError(row.name, "vector", f"the source holds {src_dt.itemsize * 8}-bit elements",
                              f"{v.name}: {v.etype.name}")
    if t.a.dtype.itemsize != dst_dt.itemsize:
        raise ConstraintError(row.name, "target", f"the target holds {dst_dt.itemsize * 8}-bit elements",
                              f"{t.name}: {t.etype.name}")
    same_length(t, v, row, "vector")
    src = v.a.view(src_dt)
    t.a.view(dst_dt)[...] = cast(src, dst_dt, saturate=m.readings.narrow == "saturate")


def filter_sub(m, row, t, v, f):
    """target[:n] += vector * f (wrap, in the target's element type); the target is two vector registers
    longer than the argument: those last two registers are the instruction's work space."""
    need = v.nbytes + 2 * m.reg_bytes
    if t.nbytes != need:
        raise ConstraintError(row.name, "target", f"the target is two vector registers ({2 * m.reg_bytes} B) "
                              f"longer than the argument vector ({v.nbytes} B + {2 * m.reg_bytes} B = {need} B)",
                              f"{t.name}: {t.nbytes} B")
    if v.a.dtype.itemsize != t.a.dtype.itemsize:
        raise ConstraintError(row.name, "vector", "the argument's elements have the target's size",
                              f"{v.name}: {v.etype.name} vs {t.etype.name}")
    n = v.length
    off = m.reg_bytes // t.a.dtype.itemsize if m.readings.filter_sub == "centre" else 0
    acc = t.a[off:off + n]
    wide = acc.astype(np.int64) + v.a.astype(np.int64) * int(f)
    store(acc, wide, False)
