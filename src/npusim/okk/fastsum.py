"""When the FTZ checks of a sum of products can be skipped, bit-exactly.

Every fp32 value of magnitude >= 2^-103 is a multiple of 2^-126 (its ulp is at least 2^-126), and a
rounded sum of multiples of 2^-126 is again one, so it is 0 or at least 2^-126 = FLT_MIN: never
subnormal. Hence if every nonzero product a*b has |a*b| >= 2^-102 (a margin over 2^-103 for the
rounding of the product itself), no product and no partial sum is ever subnormal, and the DAZ/FTZ
arithmetic equals plain IEEE float32 arithmetic on the (already DAZ'd) inputs. The check costs one
pass over each operand; the accumulation loops then skip three passes per operation.
"""
from __future__ import annotations

import numpy as np

from . import native_mac

LIMIT = 2.0 ** -102


def smallest_nonzero(a: np.ndarray) -> float:
    """min |a| over nonzero elements (inf when there are none)."""
    if a.size == 0:
        return float("inf")
    m = np.abs(a, dtype=np.float32)
    m[m == 0] = np.inf
    return float(m.min())


def products_stay_normal(a: np.ndarray, b: np.ndarray) -> bool:
    """True when every nonzero product of an element of a and an element of b is >= 2^-102."""
    sa = smallest_nonzero(a)
    if sa == float("inf"):
        return True
    sb = smallest_nonzero(b)
    return sb == float("inf") or sa * sb >= LIMIT


def scan(a: np.ndarray) -> float:
    """``smallest_nonzero(a)``, NaN when ``a`` holds a NaN; one native pass when available."""
    if a.size and native_mac.enabled():
        m, nan = native_mac.min_abs_nonzero(a)
        return float("nan") if nan else m
    return smallest_nonzero(a)


def plain_paths(a: np.ndarray, b: np.ndarray) -> tuple[bool, bool]:
    """(``products_stay_normal(a, b)``, that and neither operand holds a NaN and the native kernels are
    enabled). The second licenses the native kernels: without NaN inputs every NaN a sum can meet is
    the default NaN, so the order of two operands inside an addition cannot change a bit."""
    sa, sb = scan(a), scan(b)
    nan = sa != sa or sb != sb
    normal = sa == float("inf") or sb == float("inf") or sa * sb >= LIMIT     # as products_stay_normal
    return normal, normal and not nan and native_mac.enabled()


_SUM_SAFE = 2.0 ** -103          # nonzero magnitudes from here up are multiples of 2^-126 (see above)
_FLT_MIN = 2.0 ** -126


def _distinct(a: np.ndarray) -> np.ndarray:
    """The elements of ``a`` once each, flat and contiguous: a zero-stride (broadcast) axis is read at
    index 0 only, so a kernel's stride-0 operand is scanned at its own size, not the broadcast one."""
    if a.ndim and 0 in a.strides:
        a = a[tuple(slice(0, 1) if st == 0 else slice(None) for st in a.strides)]
    return np.ascontiguousarray(a).reshape(-1)


def daz_op(op, a, b, first_nan: bool = False) -> np.ndarray:
    """``ftz(op(daz(a), daz(b)))`` for op in np.add, np.subtract, np.multiply (the BDC's elementwise
    fp32 arithmetic), as one plain float32 operation when a scan of each operand proves every DAZ and
    FTZ step the identity: no operand is subnormal, and a sum's operands are 0 or >= 2^-103 (then the
    sum is 0 or >= FLT_MIN), a product's smallest nonzero factors multiply to >= FLT_MIN (exact in
    float64; FLT_MIN is representable, so the rounded product stays >= FLT_MIN). A NaN operand takes
    the general path. ``first_nan``: a NaN pair gives quiet(a), the C-model's x86 rule
    (nan_payload.keep_first_nan); the plain path has no NaN operand, so it skips that pass too."""
    from . import fp32
    from .nan_payload import keep_first_nan
    a32, b32 = np.asarray(a, np.float32), np.asarray(b, np.float32)
    sa, sb = scan(_distinct(a32)), scan(_distinct(b32))
    if op is np.multiply:
        plain = sa >= _FLT_MIN and sb >= _FLT_MIN and sa * sb >= _FLT_MIN
    else:
        plain = sa >= _SUM_SAFE and sb >= _SUM_SAFE
    if plain:
        return op(a32, b32, dtype=np.float32)
    r = fp32.ftz_(op(fp32.daz(a32), fp32.daz(b32), dtype=np.float32))
    return keep_first_nan(r, a32, b32) if first_nan else r
