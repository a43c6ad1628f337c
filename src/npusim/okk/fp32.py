"""BM1684 BDC fp32 arithmetic, bit for bit (reference okkernel.md §4).

Every BDC fp32 operation is IEEE binary32 round-to-nearest-even with subnormal inputs read as zero
(DAZ) and subnormal results flushed to a zero of the same sign (FTZ). numpy's float32 operations are
IEEE RNE, so ``fl(a op b)`` is the numpy float32 operation on DAZ'd inputs followed by a flush.

Functions here work on flat float32 arrays, whole-array, in chunks that stay in cache for the long
Taylor loop. Operands read from memory go through ``daz`` once; results of these functions are already
flushed, so chained operations need no further input flush.
"""
from __future__ import annotations

import math

import numpy as np

from . import native_mac

F32 = np.float32
FLT_MIN = F32(2.0 ** -126)
_ZERO = F32(0.0)
CHUNK = 1 << 15


_ONE_U, _SUB_U = np.uint32(1), np.uint32(0x7FFFFF)
_SCAN_MIN = 1 << 12                 # below this a native call costs more than the numpy passes


def ftz_(r: np.ndarray, tmp: np.ndarray | None = None) -> np.ndarray:
    """Flush subnormals of float32 array ``r`` in place to a zero of the same sign (x*0 keeps it).
    |r|'s bits minus 1 are below 0x7FFFFF exactly for subnormals (zero wraps to 0xFFFFFFFF), so the
    masked multiply, numpy's slowest step, runs only when there is something to flush. Large
    contiguous arrays are first scanned natively (one pass; native_mac): nothing below FLT_MIN but
    zero means nothing to flush."""
    if r.size >= _SCAN_MIN and r.flags.c_contiguous and native_mac.enabled():
        if native_mac.min_abs_nonzero(r)[0] >= FLT_MIN:
            return r
    t = np.asarray(np.abs(r, out=tmp)).view(np.uint32)     # (a 0-d r gives a scalar)
    np.subtract(t, _ONE_U, out=t)
    m = np.less(t, _SUB_U)
    if m.any():
        np.multiply(r, _ZERO, out=r, where=m)
    return r


def daz(x: np.ndarray) -> np.ndarray:
    """A float32 copy of ``x`` with subnormals read as zero."""
    return ftz_(np.array(x, dtype=F32, copy=True))


def neg_from_zero(x: np.ndarray) -> np.ndarray:
    """fl(0 - daz(x)) = sub(0, daz(x)) in four whole-array ops instead of eight: 0 - x is exact (|x| or a
    NaN), so only DAZ matters, and a DAZ'd input (+-0) gives +0."""
    r = np.subtract(_ZERO, x, dtype=F32)
    np.copyto(r, _ZERO, where=np.less(np.abs(x), FLT_MIN))
    return r


def mul(a, b):
    return ftz_(np.multiply(a, b, dtype=F32))


def add(a, b):
    return ftz_(np.add(a, b, dtype=F32))


def sub(a, b):
    return ftz_(np.subtract(a, b, dtype=F32))



# ---- Taylor series (§4.1): fp32-iterated coefficients, Horner without the constant term ----

def _coefficients() -> np.ndarray:
    c = [F32(1.0)]
    for k in range(1, 65):
        v = F32(c[-1] / F32(k))
        c.append(v if abs(v) >= FLT_MIN else F32(0.0))
    return np.array(c, F32)


TAYLOR_COEF = _coefficients()           # c_0 .. c_64; c_34 .. c_64 flush to 0
_COEF64 = TAYLOR_COEF.astype(np.float64)
_ADD_MAY_BE_TINY = F32(2.0 ** -100)     # p + c_k can land below FLT_MIN only when c_k is this small
_FLT_MIN64 = 2.0 ** -126


def taylor_flush_steps(xs: np.ndarray, n: int) -> list[bool] | None:
    """For the Horner loop of ``taylor_sum`` on ``xs``: whether the product of step k (k = n..1, index k)
    may be subnormal, or None when no claim can be made (some |x| > 1, or a NaN).

    Why it is exact: with |x| <= 1 the partial results stay small against the next coefficient:
    |p_{k+1}| <= 0.6 c_k for k = n-1..2 (c_k = fl(c_{k-1}/k) <= c_{k-1}(1+2^-24)/k and
    (1.6/3)(1+2^-24)^3 < 0.6), so |p_3| <= 0.3, |p_2| < 0.81 and every sum p_{k+1} + c_k is at least
    0.4 c_k (0.19 for k = 1). Each product then has |p_k| >= 0.125 c_k |x| for x != 0 (and is +-0 for
    x = 0); flushes only shrink |p|, so the bounds hold whatever earlier steps flushed. A step whose
    bound 0.125 c_k min|x| reaches FLT_MIN cannot produce a subnormal and its FTZ pass is the identity.
    """
    a = np.abs(xs)
    big = a.max(initial=0.0)
    if not big <= 1.0:              # also catches NaN
        return None
    m = float(a.min(where=a > 0, initial=np.inf))
    return (_COEF64[:n + 1] * (0.125 * m) < _FLT_MIN64).tolist()


def taylor_sum(x: np.ndarray, n: int) -> np.ndarray:
    """sum_{k=1..n} x^k/k! as the SFU evaluates it: p = fl(c_n*x); p = fl(fl(p + c_k)*x), k = n-1..1.
    ``x`` is flat float32 already DAZ'd. Returns a new flat float32 array. The FTZ pass after a product
    is skipped where ``taylor_flush_steps`` proves it cannot change a bit."""
    x = np.ascontiguousarray(x, F32).ravel()
    out = np.empty_like(x)
    coef = TAYLOR_COEF
    with np.errstate(all="ignore"):
        for lo in range(0, x.size, CHUNK):
            xs = x[lo:lo + CHUNK]
            p = out[lo:lo + CHUNK]
            tmp = np.empty_like(xs)
            flush = taylor_flush_steps(xs, n)
            np.multiply(xs, coef[n], out=p)
            if flush is None or flush[n]:
                ftz_(p, tmp)
            for k, ck, add_may_be_tiny in _horner_steps(n):
                np.add(p, ck, out=p)
                if add_may_be_tiny:
                    ftz_(p, tmp)
                np.multiply(p, xs, out=p)
                if flush is None or flush[k]:
                    ftz_(p, tmp)
    return out


_STEPS: dict = {}


def _horner_steps(n: int) -> list:
    """(k, c_k as a 0-d float32 array, may p + c_k be subnormal?) for k = n-1..1, built once per n: on
    tiny tiles the loop's own numpy scalar work (indexing, comparing) costs as much as its arithmetic,
    and a 0-d array operand is cheaper for a ufunc than a numpy scalar (same float32 value and result)."""
    steps = _STEPS.get(n)
    if steps is None:
        steps = _STEPS[n] = [(k, np.array(TAYLOR_COEF[k]), bool(TAYLOR_COEF[k] < _ADD_MAY_BE_TINY))
                             for k in range(n - 1, 0, -1)]
    return steps


# ---- tables (§4.2, §4.3) ----

def _exp_table() -> np.ndarray:
    t = np.zeros(256, F32)
    for i in range(-128, 128):
        if -103 <= i <= 88:
            t[i & 0xFF] = F32(math.exp(i))     # (float)exp((double)i), subnormals kept
    return t


EXP_TABLE = _exp_table()                 # indexed by the low byte of the int32 (i8 wrap)
INT8_TABLE = np.array([F32(((i + 128) & 0xFF) - 128) for i in range(256)], F32)   # (float) i8(x)


def lookup_exp(i32: np.ndarray) -> np.ndarray:
    return EXP_TABLE[np.asarray(i32).view(np.uint32) & 0xFF]


def lookup_int8(i32: np.ndarray) -> np.ndarray:
    return INT8_TABLE[np.asarray(i32).view(np.uint32) & 0xFF]


_I32_LO, _I32_HI = F32(-2.0 ** 31), F32(2.0 ** 31)


def fp32_to_int32(x: np.ndarray) -> np.ndarray:
    """Truncate toward zero, saturating (3e9 -> INT32_MAX, §4.3). A NaN saturates by its sign bit like
    an infinity (+NaN -> INT32_MAX, -NaN -> INT32_MIN), as the C-model's in-place exp shows."""
    x = np.asarray(x, F32)
    if x.size and x.min() >= _I32_LO and x.max() < _I32_HI:     # NaN fails both: general path
        return x.astype(np.int32)       # in range, truncation is exact and nothing saturates
    with np.errstate(all="ignore"):
        r = np.clip(x, F32(-2.0 ** 31), F32(2147483520.0)).astype(np.int32)
    r[x >= F32(2.0 ** 31)] = np.iinfo(np.int32).max
    nan = np.isnan(x)
    if nan.any():
        r[nan] = np.where(np.signbit(x[nan]), np.iinfo(np.int32).min, np.iinfo(np.int32).max)
    return r


# ---- fast inverse square root and division (§4.5) ----

_MAGIC = np.uint32(0x5F3759DF)


def rsqrt_nr(x: np.ndarray) -> np.ndarray:
    """Quake's magic constant on the raw bits read as int32 (arithmetic shift, so a negative input
    flips the sign of the first guess and of the result; no DAZ there), then three Newton steps."""
    x = np.asarray(x, F32)
    y = ftz_((_MAGIC.astype(np.int32) - (x.view(np.int32) >> np.int32(1))).view(F32))
    if x.size and x.min() >= _RSQRT_SAFE_LO and x.max() <= _RSQRT_SAFE_HI:   # NaN fails both
        return _rsqrt_steps_unflushed(x, y)
    x2 = mul(F32(0.5), daz(x))
    for _ in range(3):
        t = mul(x2, y)
        t = mul(t, y)
        t = sub(F32(1.5), t)
        y = mul(y, t)
    return y


_RSQRT_SAFE_LO, _RSQRT_SAFE_HI = F32(2.0 ** -120), F32(2.0 ** 120)


def _rsqrt_steps_unflushed(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The three Newton steps of ``rsqrt_nr`` without DAZ/FTZ passes, for x in [2^-120, 2^120]. Why
    exact: the magic guess of a positive normal x is within 3.5 % of 1/sqrt(x), and each step only
    improves it, so every y is in [2^-61, 2^61]; x/2 is in [2^-121, 2^119], x/2*y ~ sqrt(x)/2 in
    [2^-62, 2^60], x/2*y*y ~ 1/2 and 1.5 - that ~ 1. No value comes near 2^-126, so every flush
    is the identity (and x, normal, is its own DAZ)."""
    x2 = np.multiply(F32(0.5), x, dtype=F32)
    for _ in range(3):
        t = np.multiply(x2, y, dtype=F32)
        np.multiply(t, y, out=t)
        np.subtract(F32(1.5), t, out=t)
        y = np.multiply(y, t, dtype=F32)
    return y


def div_fnc(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b as the BDC divides: fl(fl(r*r) * a'), r = rsqrt_nr(|b|), a' = |a| with sign(a) ^ sign(b)."""
    a = np.asarray(a, F32)
    b = np.asarray(b, F32)
    bu = b.view(np.uint32)
    r = rsqrt_nr((bu & np.uint32(0x7FFFFFFF)).view(F32))
    sign = (a.view(np.uint32) ^ bu) & np.uint32(0x80000000)
    a2 = ((a.view(np.uint32) & np.uint32(0x7FFFFFFF)) | sign).view(F32)
    return mul(mul(r, r), daz(a2))
