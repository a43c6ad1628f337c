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
