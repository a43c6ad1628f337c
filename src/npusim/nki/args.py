"""Argument normalisation at the ``nki`` API boundary: ints, indices, axes, shapes, fill values.

Every public function turns its plain-Python arguments into checked values here, so a None, NaN, inf,
bool, float or huge value ends in a ``ConstraintError`` naming the API, the parameter and the rule, never
in a TypeError, OverflowError or a numpy error further down. Rules (docs/nki.md, "Argument rules"):

- an int argument (index, slice bound, ``nl.ds`` start/size, loop bound, axis, ``n``) is a Python or
  numpy integer, not a bool and not a float (``1.0`` is refused rather than truncated);
- a shape is a tuple of positive ints; an on-chip tile has at most ``MAX_PARTITIONS`` partitions (an
  over-wide tile up to that size is allocated so the first ISA op reports the vendor's partition rule)
  and an HBM tensor at most ``MAX_HBM_BYTES`` bytes;
- a real-number argument is an int or float (not a bool); an integer fill value is integral, finite
  and inside the dtype's range.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.args import is_int  # noqa: F401  (re-exported: callers use args.is_int)
from ..core.errors import ConstraintError

MAX_PARTITIONS = 4096              # over-wide on-chip tiles: allocated, refused by the first ISA op
MAX_HBM_BYTES = 1 << 30            # one HBM tensor (npusim's limit: its bytes are host memory)
MAX_DIMS = 8
MAX_LOOP = 1 << 31                 # a loop bound is an int32 trip count


def as_int(api: str, param: str, v, lo: int | None = None, hi: int | None = None, rule: str = "") -> int:
    if not is_int(v):
        raise ConstraintError(api, param, rule or "an int (not a bool or float: floats are not truncated)", v)
    v = int(v)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        bounds = f"{'' if lo is None else lo} <= {param} {'' if hi is None else '<= ' + str(hi)}".strip()
        raise ConstraintError(api, param, rule or bounds, v)
    return v


def as_real(api: str, param: str, v, finite: bool = False) -> float:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ConstraintError(api, param, "a real number (int or float)", v)
    if isinstance(v, (int, np.integer)) and abs(int(v)) > 2 ** 128:
        raise ConstraintError(api, param, "a value float32 can hold", v)
    f = float(v)
    if finite and not math.isfinite(f):
        raise ConstraintError(api, param, "a finite number", v)
    return f


def fill_value(api: str, param: str, v, dt):
    """A constant to fill a tile of npusim DType ``dt``: a float for float dtypes (NaN and inf allowed),
    an integral finite value inside the range for integer and bool dtypes."""
    if dt.is_float:
        return as_real(api, param, v)
    if dt.kind == "b" and isinstance(v, (bool, np.bool_)):
        return int(v)
    f = as_real(api, param, v)
    if not math.isfinite(f) or (isinstance(v, (float, np.floating)) and not f.is_integer()):
        raise ConstraintError(api, param, f"an integral value for a {dt.name} tensor", v)
    i = int(v) if is_int(v) else int(f)
    if not int(dt.min) <= i <= int(dt.max):
        raise ConstraintError(api, param, f"a value inside {dt.name} [{int(dt.min)}, {int(dt.max)}]", v)
    return i


def shape(api: str, v, itemsize: int = 1, on_chip: bool = False, param: str = "shape") -> tuple:
    out = None
    if type(v) is tuple and 1 <= len(v) <= MAX_DIMS:     # the common case: positive Python ints as they are
        for d in v:
            if type(d) is not int or d < 1:
                break
        else:
            out = v
    if out is None:
        if is_int(v):
            v = (v,)
        if not isinstance(v, (tuple, list)):
            raise ConstraintError(api, param, "a tuple of positive ints", v)
        if not 1 <= len(v) <= MAX_DIMS:
            raise ConstraintError(api, param, f"1 to {MAX_DIMS} dims", v)
        out = tuple(as_int(api, param, d, 1, rule="every dim is a positive int") for d in v)
    if on_chip and out[0] > MAX_PARTITIONS:
        raise ConstraintError(api, param, f"an SBUF/PSUM tile has at most {MAX_PARTITIONS} partitions "
                              "(the hardware has 128)", out)
    if not on_chip and math.prod(out) * itemsize > MAX_HBM_BYTES:
        raise ConstraintError(api, param, f"an HBM tensor holds at most {MAX_HBM_BYTES} bytes (npusim's limit)",
                              out)
    return out


def axis(api: str, v, ndim: int, param: str = "axis") -> tuple:
    """Sorted, distinct, non-negative axes of an ``ndim``-d tensor from an int or a tuple of ints."""
    items = (v,) if is_int(v) else tuple(v) if isinstance(v, (tuple, list)) else None
    if items is None:
        raise ConstraintError(api, param, "an int or a tuple of ints", v)
    out = []
    for a in items:
        a = as_int(api, param, a, -ndim, ndim - 1, rule=f"an axis of a {ndim}-d tensor (-{ndim} <= axis < {ndim})")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ConstraintError(api, param, "distinct axes", v)
    if not out:
        raise ConstraintError(api, param, "at least one axis", v)
    return tuple(sorted(out))
