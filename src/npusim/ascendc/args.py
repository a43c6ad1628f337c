"""Argument normalisation at the Ascend C API boundary: integers (counts, masks, repeat times, strides,
offsets, sizes, ids), scalars of a tensor's type T, and type arguments.

C++ would not compile a None, a string or a list where an integer is declared, and converting a NaN or
an infinity to an integer is undefined behaviour; npusim refuses all of them with a ``ConstraintError``
naming the API, the parameter and the rule. Rules (docs/ascendc.md, "Argument rules"):

- an integer parameter is a Python or numpy int; a bool or float is refused, never truncated;
- a scalar of type T (``Adds``, ``Duplicate``, ``SetValue``, Select's scalar ...) is an int or float, not a
  bool; for an integer T it is finite and fits 64 bits (it is then converted as C++ ``T x = value`` does:
  floats truncate, integers wrap); for a float T NaN and infinities are values like any other;
- a type argument is an Ascend C type (``asc.half``, ``asc.float`` ...) or a dtype name npusim knows.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.args import is_int  # noqa: F401  (re-exported: callers use args.is_int)
from ..core.errors import ConstraintError
from .dtypes import as_dtype


def as_int(api: str, param: str, v, lo: int | None = None, hi: int | None = None, rule: str = "") -> int:
    if not is_int(v):
        raise ConstraintError(api, param, rule or "an integer (not a bool, float or None)", v)
    v = int(v)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        if not rule:
            rule = (f"{lo} <= {param} <= {hi}" if lo is not None and hi is not None
                    else f"{param} >= {lo}" if lo is not None else f"{param} <= {hi}")
        raise ConstraintError(api, param, rule, v)
    return v


def scalar(api: str, param: str, v, dtype):
    """A scalar of the tensor type ``dtype`` (an npusim DType), as a Python int or float."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ConstraintError(api, param, f"a scalar of type {dtype.name} (an int or float)", v)
    if dtype.is_int:
        if isinstance(v, (float, np.floating)) and not math.isfinite(float(v)):
            raise ConstraintError(api, param, f"a finite value for an integer type {dtype.name} (converting "
                                  "NaN or inf to an integer is undefined in C++)", v)
        if not -2 ** 63 <= (int(v) if is_int(v) else math.trunc(float(v))) < 2 ** 64:
            raise ConstraintError(api, param, "a value that fits 64 bits", v)
        return int(v) if is_int(v) else float(v)
    if is_int(v) and abs(int(v)) > 2 ** 1023:
        raise ConstraintError(api, param, "a value a double can hold", v)
    return float(v)


def position(api: str, v):
    from .tensor import TPosition
    if isinstance(v, TPosition):
        return v
    if is_int(v) and v in TPosition._value2member_map_:
        return TPosition(v)
    raise ConstraintError(api, "position", "a TPosition", v)


def dtype(api: str, param: str, v):
    if v is None:
        raise ConstraintError(api, param, "an Ascend C type (asc.half, asc.float, asc.int16_t ...)", v)
    try:
        return as_dtype(v)
    except (KeyError, TypeError, ValueError):
        raise ConstraintError(api, param, "an Ascend C type (asc.half, asc.float, asc.int16_t ...)", v) from None


def shape(api: str, param: str, v, min_dims: int = 1, hi: int = 2 ** 31 - 1) -> tuple[int, ...]:
    """A host-side shape (``std::vector<int64_t>`` / ``ge::Shape``): a sequence of at least ``min_dims``
    integers in [0, hi]."""
    if not isinstance(v, (tuple, list, np.ndarray)) or len(v) < min_dims:
        raise ConstraintError(api, param, f"a shape of at least {min_dims} integer dimension(s)", v)
    return tuple(as_int(api, param, d, 0, hi) for d in v)


def type_size(api: str, param: str, v) -> int:
    """sizeof(T) of a data type: 1, 2, 4 or 8."""
    v = as_int(api, param, v)
    if v not in (1, 2, 4, 8):
        raise ConstraintError(api, param, "sizeof(T): 1, 2, 4 or 8", v)
    return v
