"""One dtype table and one cast for every target.

``cast(values, to, round=RoundMode.RINT, saturate=True, overflow="inf")`` is the only place in npusim
where a value changes type. Narrowing float casts round on the target's own grid (mantissa bits,
subnormal floor, largest finite value), computed exactly in float64, so every rounding mode is
bit-exact and the fast RINT path can be checked against ml_dtypes and numpy.
"""
from __future__ import annotations

import contextlib
import enum
from dataclasses import dataclass

import ml_dtypes
import numpy as np


class RoundMode(enum.Enum):
    RINT = "rint"    # to nearest, ties to even
    FLOOR = "floor"  # toward -inf
    CEIL = "ceil"    # toward +inf
    ROUND = "round"  # to nearest, ties away from zero
    TRUNC = "trunc"  # toward zero
    ODD = "odd"      # von Neumann: truncate, then set the kept LSB if anything was discarded


@dataclass(frozen=True)
class DType:
    """One row of the table. ``np`` is the storage dtype; floats also carry their rounding grid."""
    name: str
    np: np.dtype
    kind: str                    # "f" float, "i" signed int, "u" unsigned int, "b" bool
    bits: int                    # storage bits
    nmant: int = 0               # stored mantissa bits (floats)
    minexp: int = 0              # exponent of the smallest normal (floats)
    max: float = 0.0             # largest finite value (floats) or integer maximum
    min: float = 0.0             # integer minimum (0 for unsigned); -max for floats
    has_inf: bool = True

    @property
    def itemsize(self) -> int:
        return self.np.itemsize

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.kind in "iu"

    def __str__(self) -> str:
        return self.name


def _float(name: str, npdt, nmant: int | None = None) -> DType:
    npdt = np.dtype(npdt)
    fi = ml_dtypes.finfo(npdt) if npdt.kind == "V" or npdt.name not in ("float16", "float32", "float64") \
        else np.finfo(npdt)
    has_inf = bool(np.isinf(np.array(np.inf, np.float64).astype(npdt)))
    return DType(name, npdt, "f", npdt.itemsize * 8, fi.nmant if nmant is None else nmant, int(fi.minexp),
                 float(fi.max), -float(fi.max), has_inf)


def _int(name: str, npdt) -> DType:
    npdt = np.dtype(npdt)
    ii = np.iinfo(npdt)
    return DType(name, npdt, npdt.kind, npdt.itemsize * 8, max=int(ii.max), min=int(ii.min), has_inf=False)


# tfloat32 is stored in 32 bits but keeps 10 mantissa bits (NVIDIA/AWS TF32).
_TF32 = DType("tfloat32", np.dtype(np.float32), "f", 32, 10, -126,
              float(np.ldexp(2.0 - 2.0 ** -10, 127)), -float(np.ldexp(2.0 - 2.0 ** -10, 127)), True)

DTYPES: dict[str, DType] = {d.name: d for d in [
    _float("float64", np.float64),
    _float("float32", np.float32),
    _TF32,
    _float("float16", np.float16),
    _float("bfloat16", ml_dtypes.bfloat16),
    _float("float8_e4m3", ml_dtypes.float8_e4m3),
    _float("float8_e4m3fn", ml_dtypes.float8_e4m3fn),
    _float("float8_e5m2", ml_dtypes.float8_e5m2),
    _int("int8", np.int8), _int("int16", np.int16), _int("int32", np.int32), _int("int64", np.int64),
    _int("uint8", np.uint8), _int("uint16", np.uint16), _int("uint32", np.uint32),
    DType("bool", np.dtype(np.bool_), "b", 8, max=1, min=0, has_inf=False),
]}

_BY_NP: dict[np.dtype, DType] = {}
for _d in DTYPES.values():
    _BY_NP.setdefault(_d.np, _d)      # float32 storage maps to float32, not tfloat32


def dtype(d) -> DType:
    """Look a dtype up by DType, name, numpy dtype or scalar type."""
    if isinstance(d, DType):
        return d
    if isinstance(d, str) and d in DTYPES:
        return DTYPES[d]
    try:
        return _BY_NP[np.dtype(d)]
    except (TypeError, KeyError):
        raise KeyError(f"npusim has no dtype {d!r}; known: {', '.join(DTYPES)}") from None


# ---------------------------------------------------------------------------------------------- rounding

def round_integer(q: np.ndarray, mode: RoundMode) -> np.ndarray:
    """Round float64 values to integral float64 values with ``mode`` (exact: float64 holds them)."""
    if mode is RoundMode.RINT:
        return np.rint(q)
    if mode is RoundMode.FLOOR:
        return np.floor(q)
    if mode is RoundMode.CEIL:
        return np.ceil(q)
    if mode is RoundMode.TRUNC:
        return np.trunc(q)
    t = np.trunc(q)
    if mode is RoundMode.ROUND:
        return np.where(np.abs(q - t) >= 0.5, t + np.sign(q), t)        # where: keeps -0.0
    if mode is RoundMode.ODD:
        inexact = (q != t) & np.isfinite(q)
        return np.where(inexact & (np.fmod(t, 2.0) == 0.0), t + np.sign(q), t)
    raise ValueError(f"unknown round mode {mode!r}")


def _round_to_float_grid(x: np.ndarray, to: DType, mode: RoundMode) -> np.ndarray:
    """Round float64 ``x`` onto ``to``'s grid (no overflow handling); returns float64."""
    _, e = np.frexp(x)
    exp = np.maximum(e.astype(np.int64) - 1, to.minexp)      # binade, floored at the subnormal one
    ulp_exp = exp - to.nmant
    q = np.ldexp(x, -ulp_exp)                                # exact: a power-of-two scaling
    return np.ldexp(round_integer(q, mode), ulp_exp)


def _float_overflow(r: np.ndarray, x: np.ndarray, to: DType, mode: RoundMode, overflow: str) -> np.ndarray:
    """Apply the IEEE overflow rule of ``mode`` (or saturation) to rounded values ``r`` of inputs ``x``."""
    big = np.abs(r) > to.max
    if overflow == "saturate":
        r = np.where(big, np.copysign(to.max, r), r)
        return np.where(np.isnan(r), 0.0, r)
    if not big.any():
        return r
    finite_in = np.isfinite(x)
    # Finite inputs: RINT/ROUND/away go to inf; a mode that rounds toward zero for that sign stays at max.
    if mode in (RoundMode.RINT, RoundMode.ROUND):
        to_max = np.zeros_like(big)
    elif mode in (RoundMode.TRUNC, RoundMode.ODD):
        to_max = np.ones_like(big)
    elif mode is RoundMode.FLOOR:
        to_max = x > 0
    else:  # CEIL
        to_max = x < 0
    to_max &= finite_in
    inf = np.copysign(np.inf if to.has_inf else np.nan, r)
    return np.where(big, np.where(to_max, np.copysign(to.max, r), inf), r)


_BITS_OF = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32}


def _directed_from_nearest(a: np.ndarray, to: DType, mode: RoundMode) -> np.ndarray:
    """Any mode, overflow "inf", by correcting the hardware-speed round-to-nearest cast by one ulp.

    The nearest value and its neighbour on the other side of ``a`` bracket the exact value, and
    neighbours on the grid have consecutive bit patterns (sign-magnitude), so every mode is a choice
    between the bits ``b`` and ``b +- 1``. Differences below are exact (Sterbenz: the values are within
    a factor of two of each other). Checked against the float64 grid path by the dtype tests.
    """
    r = a.astype(to.np)                                       # RNE, overflow to inf (single rounding)
    if mode is RoundMode.RINT:
        return r
    work = np.float64 if a.dtype == np.float64 else np.float32    # holds both operands exactly
    x = a.astype(work, copy=False)
    rf = r.astype(work)
    b = r.view(_BITS_OF[to.name]).copy()
    neg = np.signbit(rf)
    one = b.dtype.type(1)
    if mode is RoundMode.TRUNC:
        np.subtract(b, one, out=b, where=np.abs(rf) > np.abs(x))
    elif mode is RoundMode.FLOOR:
        down = rf > x
        np.subtract(b, one, out=b, where=down & ~neg)
        np.add(b, one, out=b, where=down & neg)
    elif mode is RoundMode.CEIL:
        up = rf < x
        np.subtract(b, one, out=b, where=up & neg)
        np.add(b, one, out=b, where=up & ~neg)
    elif mode is RoundMode.ROUND:                             # differs from RINT only at ties
        away = (b + one).view(to.np).astype(work)
        tie = (rf != x) & (np.abs(away - x) == np.abs(x - rf)) & (np.abs(away) > np.abs(rf))
        np.add(b, one, out=b, where=tie)
    elif mode is RoundMode.ODD:                               # the bracketing neighbour with odd bits
        fix = (rf != x) & np.isfinite(x) & ((b & one) == 0)
        toward_zero = np.abs(rf) > np.abs(x)
        np.subtract(b, one, out=b, where=fix & toward_zero)
        np.add(b, one, out=b, where=fix & ~toward_zero)
    return b.view(to.np)


def _int_limits(values: np.ndarray, to: DType, saturate: bool) -> np.ndarray:
    """float64 integral values (may be inf/NaN) -> ``to`` with saturation (NaN -> 0) or wrap."""
    if saturate:
        v = values                                 # a fresh array from round_integer: edit in place
        nan = np.isnan(v)
        if nan.any():
            v[nan] = 0.0
        if to.bits == 64:   # float64 cannot hold int64 max: clip below it and fix up the top
            top = v >= 2.0 ** 63
            out = np.clip(v, to.min, 2.0 ** 63 - 1024).astype(np.int64)
            out[top] = np.iinfo(np.int64).max
            return out.astype(to.np, copy=False)
        return np.clip(v, to.min, to.max, out=v).astype(to.np)   # clip: SIMD, 5x np.maximum on big arrays
    v = np.nan_to_num(values, nan=0.0, posinf=0.0, neginf=0.0)
    wide = np.fmod(v, 2.0 ** 64)                              # keep int64 conversion defined
    wide = np.where(wide >= 2.0 ** 63, wide - 2.0 ** 64, wide)
    wide = np.where(wide < -(2.0 ** 63), wide + 2.0 ** 64, wide)
    return wide.astype(np.int64).astype(to.np)


def cast(values, to, round: RoundMode = RoundMode.RINT, saturate: bool = True,
         overflow: str = "inf") -> np.ndarray:
    """Convert ``values`` to dtype ``to`` as hardware does.

    round:     how inexact results round (RoundMode).
    saturate:  integer targets clip to their range (NaN -> 0) when True, wrap modulo 2**bits when False.
    overflow:  float targets: "inf" (IEEE: overflow to inf, or to max where the mode rounds toward zero;
               NaN for formats without inf) or "saturate" (inf -> +-max, NaN -> 0).
    """
    to = dtype(to)
    a = np.asarray(values)
    src = dtype(a.dtype) if a.dtype != np.float64 else DTYPES["float64"]

    if to.kind == "b":
        return a != 0
    if src.kind == "b":
        a = a.astype(np.uint8)
        src = DTYPES["uint8"]

    if to.is_int:
        if src.is_int:
            if saturate:
                lo, hi = max(to.min, src.min), min(to.max, src.max)
                if lo > src.min or hi < src.max:
                    return np.clip(a, lo, hi).astype(to.np)
            return a.astype(to.np)
        # float32 holds every integer of a <= 16-bit target exactly, and every float32 value is
        # rounded exactly in it: work there when we can (half the memory traffic of float64).
        work = np.float32 if (src.is_float and src.bits <= 32 and to.bits <= 16) else np.float64
        # Saturating from float32, NaN is zeroed and values clipped before the cast: nothing can warn, and
        # skipping errstate saves microseconds per call on small operands.
        quiet = (contextlib.nullcontext() if saturate and work is np.float32
                 else np.errstate(invalid="ignore", over="ignore"))
        with quiet:
            return _int_limits(round_integer(a.astype(work, copy=False), round), to, saturate)

    # float target
    if src.is_float and src.nmant <= to.nmant and src.minexp >= to.minexp and src.max <= to.max:
        out = a.astype(to.np)                                 # widening: exact for finite values
        if overflow == "saturate" and src.has_inf:
            out = np.where(np.isnan(a), 0, np.where(np.isinf(a), np.copysign(to.max, a), out)).astype(to.np)
        return out
    # numpy and ml_dtypes cast with RNE and overflow to inf; ml_dtypes goes through float32 on the
    # way from float64 (double rounding), so the fast path takes only float sources of <= 32 bits.
    if (round is RoundMode.RINT and overflow == "inf" and to.has_inf and to.name != "tfloat32"
            and (to.name in ("float16", "float32") or (src.is_float and src.bits <= 32))):
        with np.errstate(over="ignore"):
            return a.astype(to.np)
    if (overflow == "inf" and to.name in _BITS_OF and src.is_float
            and (src.bits <= 32 or to.name in ("float16", "float32"))):
        with np.errstate(over="ignore", invalid="ignore"):
            return _directed_from_nearest(a, to, round)
    x = a.astype(np.float64)                                  # exact for floats; ints below 2**53
    with np.errstate(over="ignore", invalid="ignore"):
        r = _round_to_float_grid(x, to, round)
        r = _float_overflow(r, x, to, round, overflow)
        return r.astype(to.np)


# ------------------------------------------------------------------------------------------ fixed point

def to_fixed(values, q: int, to="int16", round: RoundMode = RoundMode.RINT, saturate: bool = True) -> np.ndarray:
    """Real values -> Qm.q fixed point stored in ``to`` (int16 or int32): round(x * 2**q)."""
    return cast(np.ldexp(np.asarray(values, np.float64), q), to, round=round, saturate=saturate)


def from_fixed(raw, q: int) -> np.ndarray:
    """Qm.q raw integers -> their real values (float64, exact)."""
    return np.ldexp(np.asarray(raw).astype(np.float64), -q)


def fixed_shift_right(raw, shift: int, to="int32", round: RoundMode = RoundMode.RINT,
                      saturate: bool = True) -> np.ndarray:
    """Arithmetic right shift of fixed-point integers by ``shift`` bits with a rounding mode (rescaling)."""
    return cast(np.ldexp(np.asarray(raw).astype(np.float64), -shift), to, round=round, saturate=saturate)


def poison_value(d) -> object:
    """The value never-written memory reads as: NaN for floats; integers use the memory's sentinel."""
    d = dtype(d)
    return np.nan if d.is_float else None
