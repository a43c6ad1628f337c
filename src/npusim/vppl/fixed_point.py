"""F16Qq / F32Qq fixed point as the image, BLAS-like and DNN dot operators use it.

An F16Qq value is a signed 16-bit integer r standing for r * 2**-q; F32Qq the same in 32 bits.
Seed 003 names the formats (F16Qq with q = 8..15 for get_array, q in {8, 10, 12} for FPBLmAvX, q = 12
for the DNN layers, F32Q16 softmax outputs) but not the arithmetic; the choices here (docs/vppl.md (part two),
"Fixed-point arithmetic") are:

* products of two F16Qq are exact Q(2q) integers; sums are exact (int64: no 1024-term F16 dot
  product can reach 2**41);
* a right shift that drops fraction bits rounds half up (adds 2**(s-1), then shifts arithmetically:
  the usual DSP "round" instruction; reference A7.15 / A7.17);
* every store to an F16 / F32 format saturates to the format's range (no wrap-around in a layer).
"""
from __future__ import annotations

import numpy as np

from ..core.dtypes import cast

F16_MIN, F16_MAX = -(1 << 15), (1 << 15) - 1
F32_MIN, F32_MAX = -(1 << 31), (1 << 31) - 1


def sat16(a) -> np.ndarray:
    """int64 values -> int16, clipped to [-32768, 32767]."""
    return cast(np.asarray(a, np.int64), "int16", saturate=True)


def sat32(a) -> np.ndarray:
    """int64 values -> int32, clipped to the int32 range."""
    return cast(np.asarray(a, np.int64), "int32", saturate=True)


def shift_round(a, s: int, rounding: str = "half_up") -> np.ndarray:
    """Arithmetic shift by s bits with round-half-up on a right shift (s > 0; rounding="floor": the bare
    shift); s < 0 shifts left (exact). int64 in, int64 out."""
    a = np.asarray(a, np.int64)
    if s > 0 and rounding == "floor":
        return a >> np.int64(s)
    if s > 0:
        return (a + (np.int64(1) << np.int64(s - 1))) >> np.int64(s)
    if s < 0:
        return a << np.int64(-s)
    return a


def to_fixed(x, q: int, bits: int = 16) -> np.ndarray:
    """Real values -> F{bits}Qq raw integers: round to nearest (ties to even, a host-side tool's
    rounding), saturated. For preparing inputs and coefficients on the host."""
    return cast(np.ldexp(np.asarray(x, np.float64), q), "int16" if bits == 16 else "int32", saturate=True)


def from_fixed(raw, q: int) -> np.ndarray:
    """F16Qq / F32Qq raw integers -> float64 (exact)."""
    return np.ldexp(np.asarray(raw).astype(np.float64), -q)


def lsb(q: int) -> float:
    """The value of one least significant bit of a Qq format."""
    return 2.0 ** -q
