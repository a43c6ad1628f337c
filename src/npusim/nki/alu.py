"""The ALU operator table (reference nki.md §2.3, NKI ``tbl-aluop``) as data.

Each ``AluOp`` is at once the operator value passed to ``nisa.tensor_scalar(op0=nl.add)`` and the
language function ``nl.add(x, y)`` (calling it runs the elementwise op, see language.py). Arithmetic
ops compute on float32 arrays and return float32; bitvec ops work on unsigned bit patterns.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

ARITH, BITVEC = "arithmetic", "bitvec"
V, S, G = "vector", "scalar", "gpsimd"


@dataclass(frozen=True, eq=False)
class AluOp:
    name: str
    cls: str                       # ARITH or BITVEC
    unary: bool
    fn: Callable                   # (a, b) -> result, or (a,) for unary ops; numpy on whole arrays
    engines: frozenset             # engines whose ALU has this op (table's engine column)
    reduce: bool = False           # legal as a reduce op
    min_nc: int = 2                # first NeuronCore version that has it (abs_max... are v4)

    def __post_init__(self):
        object.__setattr__(self, "is_bitvec", self.cls == BITVEC)   # a plain attribute: read per call

    def __call__(self, x, y=None, *, dtype=None, **kw):
        from . import language
        return language.elementwise(self, x, y, dtype=dtype, **kw)

    def __repr__(self) -> str:
        return f"nl.{self.name}"


def _f32(x):
    return np.asarray(x, np.float32)


def _cmp(f):
    # Comparisons give 1.0 where true, 0.0 otherwise (nl.equal docstring).
    return lambda a, b: f(a, b).astype(np.float32)


def _logical(f):
    return lambda a, b: f(a != 0, b != 0).astype(np.float32)


def _shift_left(a, s):
    bits = a.dtype.itemsize * 8
    s = np.asarray(s).astype(np.uint64)
    big = s >= bits
    r = np.left_shift(a, np.where(big, 0, s).astype(a.dtype))
    return np.where(big, a.dtype.type(0), r).astype(a.dtype, copy=False)


def _shift_right(a, s):
    # Logical shift right (the ALU has no arithmetic right shift): ``a`` is an unsigned bit pattern.
    bits = a.dtype.itemsize * 8
    s = np.asarray(s).astype(np.uint64)
    big = s >= bits
    r = np.right_shift(a, np.where(big, 0, s).astype(a.dtype))
    return np.where(big, a.dtype.type(0), r).astype(a.dtype, copy=False)


def _recip(a):
    return np.reciprocal(a)         # 1/0 -> inf: ops run under the kernel run's np.errstate


def _rsqrt(a):
    return np.float32(1.0) / np.sqrt(a)


def _power(a, b):
    return np.power(a, b)


def _abs_max(a, b):
    # nl.abs_max docstring: the original signed value of the input with the larger magnitude; a tie
    # (|x| == |y|) returns y. NaN compares false, so a NaN x yields y and a NaN y yields NaN.
    return np.where(np.abs(a) > np.abs(b), a, b)


def _abs_min(a, b):
    # nl.abs_min docstring: the signed value with the smaller magnitude; a tie returns y.
    return np.where(np.abs(a) < np.abs(b), a, b)


_VSG = frozenset({V, S, G})
_VEC = frozenset({V})

OPS: dict[str, AluOp] = {op.name: op for op in [
    # bitvec (Vector only)
    AluOp("invert", BITVEC, True, np.invert, _VEC),
    AluOp("bitwise_and", BITVEC, False, np.bitwise_and, _VEC, True),
    AluOp("bitwise_or", BITVEC, False, np.bitwise_or, _VEC, True),
    AluOp("bitwise_xor", BITVEC, False, np.bitwise_xor, _VEC, True),
    AluOp("left_shift", BITVEC, False, _shift_left, _VEC),
    AluOp("right_shift", BITVEC, False, _shift_right, _VEC),
    # arithmetic, binary
    AluOp("add", ARITH, False, np.add, _VSG, True),
    AluOp("multiply", ARITH, False, np.multiply, _VSG, True),
    AluOp("subtract", ARITH, False, np.subtract, _VEC, True),
    AluOp("maximum", ARITH, False, np.maximum, _VEC, True),
    AluOp("minimum", ARITH, False, np.minimum, _VEC, True),
    AluOp("equal", ARITH, False, _cmp(np.equal), _VEC),
    AluOp("not_equal", ARITH, False, _cmp(np.not_equal), _VEC),
    AluOp("greater_equal", ARITH, False, _cmp(np.greater_equal), _VEC),
    AluOp("greater", ARITH, False, _cmp(np.greater), _VEC),
    AluOp("less_equal", ARITH, False, _cmp(np.less_equal), _VEC),
    AluOp("less", ARITH, False, _cmp(np.less), _VEC),
    AluOp("logical_and", ARITH, False, _logical(np.logical_and), _VEC, True),
    AluOp("logical_or", ARITH, False, _logical(np.logical_or), _VEC, True),
    AluOp("logical_xor", ARITH, False, _logical(np.logical_xor), _VEC, True),
    AluOp("power", ARITH, False, _power, frozenset({G})),
    AluOp("abs_max", ARITH, False, _abs_max, _VEC, min_nc=4),
    AluOp("abs_min", ARITH, False, _abs_min, _VEC, min_nc=4),
    # arithmetic, unary
    AluOp("logical_not", ARITH, True, lambda a: (a == 0).astype(np.float32), _VEC),
    AluOp("abs", ARITH, True, np.abs, frozenset({V, S})),
    AluOp("rsqrt", ARITH, True, _rsqrt, frozenset({G, S})),
    AluOp("reciprocal", ARITH, True, _recip, frozenset({V, S})),
    AluOp("square", ARITH, True, np.square, frozenset({V, S}), min_nc=4),
    AluOp("relu", ARITH, True, lambda a: np.maximum(a, np.float32(0)), frozenset({V, S}), min_nc=4),
]}

#: Legacy kernels pass numpy ufuncs (``np.subtract``); they name the same ALU ops.
NUMPY_ALIASES = {
    np.add: "add", np.subtract: "subtract", np.multiply: "multiply", np.maximum: "maximum",
    np.minimum: "minimum", np.equal: "equal", np.not_equal: "not_equal", np.greater_equal: "greater_equal",
    np.greater: "greater", np.less_equal: "less_equal", np.less: "less", np.logical_and: "logical_and",
    np.logical_or: "logical_or", np.logical_xor: "logical_xor", np.logical_not: "logical_not",
    np.bitwise_and: "bitwise_and", np.bitwise_or: "bitwise_or", np.bitwise_xor: "bitwise_xor",
    np.invert: "invert", np.left_shift: "left_shift", np.right_shift: "right_shift", np.abs: "abs",
    np.power: "power", np.reciprocal: "reciprocal",
}

#: Ops that exist in nki.language but are not ALU ops: naming them is an error with this reason.
NOT_ALU = {
    "divide": "division is not available as a hardware instruction; multiply by the reciprocal",
    "true_divide": "division is not available as a hardware instruction; multiply by the reciprocal",
    "fmod": "fmod works in the official simulator but fails when compiled for Trainium",
    "mod": "mod works in the official simulator but fails when compiled for Trainium",
}


def lookup(op) -> AluOp | None:
    """The AluOp for ``op`` (an AluOp or a numpy ufunc alias), or None."""
    if isinstance(op, AluOp):
        return op
    try:
        name = NUMPY_ALIASES.get(op)
    except TypeError:
        return None
    return OPS.get(name) if name else None
