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


def store(dst: np.ndarray, wide: np.ndarray, saturate: bool) -> None:
    """Write exact results into ``dst``: clipped to its range (saturate) or modulo 2**bits (wrap)."""
    dst[...] = cast(wide, dst.dtype, saturate=saturate)


def nonneg(row, param: str, value: int, hi: int | None = None) -> int:
    if value < 0 or (hi is not None and value > hi):
        rule = f"0 <= {param} <= {hi}" if hi is not None else f"{param} >= 0"
        raise ConstraintError(row.name, param, rule, value)
    return value
