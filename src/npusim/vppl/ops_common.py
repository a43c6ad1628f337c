"""Helpers every operator module shares: typed views of a vector, scalar broadcast, checks."""
from __future__ import annotations

import numpy as np

from ..core.dtypes import cast
from ..core.errors import ConstraintError


def typed(v, row, param: str) -> np.ndarray:
    """The vector's elements as the suffix's element type (zero-copy reinterpretation: the hardware
    sees register bits; the signedness may differ from the declaration, the size may not)."""
    dt = row.dt
    if v.a.dtype.itemsize != dt.itemsize:
        raise ConstraintError(row.name, param, f"${row.suffix} works on {dt.itemsize * 8}-bit elements: the "
                              f"vector must hold {dt.itemsize * 8}-bit elements", f"{v.name}: {v.etype.name}")
    return v.a if v.a.dtype == dt else v.a.view(dt)


def same_length(t, v, row, param: str) -> None:
    if v.length != t.length:
        raise ConstraintError(row.name, param, "the argument vector has the target's length",
                              f"{v.name}[{v.length}] vs {t.name}[{t.length}]")


def low_bits(value: int, dt: np.dtype):
    """A scalar broadcast into a vector register keeps the element size's low bits (seed 003, e_set$X:
    "要素サイズ分の下位ビット数を代入")."""
    bits = dt.itemsize * 8
    u = int(value) & ((1 << bits) - 1)
    if dt.kind == "i" and u >> (bits - 1):
        u -= 1 << bits
    return dt.type(u)


def wide_dtype(dt: np.dtype) -> np.dtype:
    """A type holding any sum or product of two ``dt`` values exactly."""
    return np.dtype(np.int64) if dt.itemsize >= 4 else np.dtype(np.int32) if dt.itemsize == 2 else np.dtype(np.int16)


# The clip ufunc without np.clip's Python wrapper (about 7 us less per call on 4096 elements).
_clip = getattr(getattr(np, "_core", None), "umath", None)
_clip = getattr(_clip, "clip", None) or (lambda a, lo, hi, out: np.maximum(np.minimum(a, hi, out=out), lo, out=out))


_LIMITS: dict = {}


def _limits(dt):
    r = _LIMITS.get(dt)
    if r is None:
        info = np.iinfo(dt)
        r = _LIMITS[dt] = (int(info.min), int(info.max))
    return r


def store(dst: np.ndarray, wide: np.ndarray, saturate: bool) -> None:
    """Write exact results into ``dst``: clipped to its range (saturate) or modulo 2**bits (wrap).
    Same result as ``core.dtypes.cast(wide, dst.dtype, saturate=...)`` (test_store_matches_core_cast);
    the saturating path clips ``wide`` in place instead of allocating, for speed."""
    if saturate and wide.dtype.itemsize > dst.dtype.itemsize:
        lo, hi = _limits(dst.dtype)
        _clip(wide, lo, hi, out=wide)
        np.copyto(dst, wide, casting="unsafe")
    else:
        dst[...] = cast(wide, dst.dtype, saturate=saturate)


def nonneg(row, param: str, value: int, hi: int | None = None) -> int:
    if value < 0 or (hi is not None and value > hi):
        rule = f"0 <= {param} <= {hi}" if hi is not None else f"{param} >= 0"
        raise ConstraintError(row.name, param, rule, value)
    return value
