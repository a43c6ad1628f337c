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
