"""One-source and vector-scalar APIs on the level-0 engine, one table row each.

Prototypes: ``(dst, src, count)`` | ``(dst, src, mask, repeatTime, UnaryRepeatParams)``; the scalar APIs
take the scalar after ``src``: ``Adds(dst, src, scalarValue, count)``. Half operations compute in float32
and round once to half (correctly rounded for + - * / sqrt); transcendental functions (Exp, Ln, Rsqrt)
are evaluated in float64 and rounded once, not with the unit's undisclosed approximation (docs/ascendc.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..core.dtypes import cast
from ..core.errors import ConstraintError
from . import dtypes as T
from .context import current
from .repeat import Operand, UnaryRepeatParams, cached_call, call_key, count_form, level0
from .rules import check_dtypes, check_vector_tensor
from .vector_binary import _wide, relu, to
from . import args as _args

_ALL_ARCH = (2201, 2002, 1001, 3002)
_FLOATS = {a: (T.half, T.float) for a in _ALL_ARCH}
_ARITH = {a: (T.half, T.float, T.int16_t, T.int32_t) for a in _ALL_ARCH}
_RELU = {a: (T.half, T.float, T.int32_t) for a in _ALL_ARCH}
_BITS = {a: (T.int16_t, T.uint16_t) for a in _ALL_ARCH}
_SHIFT = {a: (T.int16_t, T.uint16_t, T.int32_t, T.uint32_t) for a in _ALL_ARCH}


@dataclass(frozen=True)
class UnarySpec:
    name: str
    kind: str                      # cost family
    dtypes: dict
    fn: Callable                   # fn(ctx, dtype, scalar) -> compute(a)
    scalar: bool = False


def _float_fn(op, f64: bool = False):
    """f64: evaluate in float64 and round once (the ideal, correctly rounded function, for the
    transcendental ones whose hardware approximation is not published)."""
    def make(ctx, d, _):
        def f(a):
            return to(ctx, op(a.astype(np.float64) if f64 else _wide(a)), d)
        return f
    return make


def _arith_scalar(op):
    def make(ctx, d, scalar):
        scalar = _args.scalar(_API_OF.get(op, "scalar op"), "scalarValue", scalar, d)
        if d.is_int:
            k = np.asarray(cast(np.asarray([scalar]), d))[0]
            return lambda a: op(a, k).astype(d.np, copy=False)
        k = np.float32(cast(np.asarray([scalar], np.float64), d)[0])   # the scalar is a T
        return lambda a: to(ctx, op(_wide(a), k), d)
    return make


def _relu(ctx, d, _):
    return lambda a: relu(a)


def _leaky(ctx, d, alpha):
    alpha = _args.scalar("LeakyRelu", "scalarValue", alpha, d)
    k = np.float32(cast(np.asarray([alpha], np.float64), d)[0])
    return lambda a: to(ctx, np.where(_wide(a) >= 0, _wide(a), _wide(a) * k), d)


def _shift(left: bool):
    def make(ctx, d, n):
        n = _args.as_int("ShiftLeft" if left else "ShiftRight", "scalarValue", n)
        if not 0 <= n < d.bits:
            raise ConstraintError("ShiftLeft" if left else "ShiftRight", "scalarValue",
                                  f"0 <= shift < {d.bits} bits", n)
        if left:
            return lambda a: np.left_shift(a, d.np.type(n))
        return lambda a: np.right_shift(a, d.np.type(n))       # arithmetic for signed types
    return make


_API_OF = {np.add: "Adds", np.multiply: "Muls", np.maximum: "Maxs", np.minimum: "Mins"}


SPECS = {s.name: s for s in [
    UnarySpec("Relu", "one", _RELU, _relu),
    UnarySpec("Exp", "exp_ln", _FLOATS, _float_fn(np.exp, True)),
    UnarySpec("Ln", "exp_ln", _FLOATS, _float_fn(np.log, True)),
    UnarySpec("Abs", "one", _FLOATS, _float_fn(np.abs)),
    UnarySpec("Sqrt", "sqrt", _FLOATS, _float_fn(np.sqrt)),
    UnarySpec("Rsqrt", "one", _FLOATS, _float_fn(lambda x: 1.0 / np.sqrt(x), True)),
    UnarySpec("Reciprocal", "one", _FLOATS, _float_fn(lambda x: np.float32(1) / x)),
    UnarySpec("Not", "one", _BITS, lambda ctx, d, _: np.invert),
    UnarySpec("Adds", "one", _ARITH, _arith_scalar(np.add), scalar=True),
    UnarySpec("Muls", "one", _ARITH, _arith_scalar(np.multiply), scalar=True),
    UnarySpec("Maxs", "one", _ARITH, _arith_scalar(np.maximum), scalar=True),
    UnarySpec("Mins", "one", _ARITH, _arith_scalar(np.minimum), scalar=True),
    UnarySpec("LeakyRelu", "one", _FLOATS, _leaky, scalar=True),
    UnarySpec("ShiftLeft", "one", _SHIFT, _shift(True), scalar=True),
    UnarySpec("ShiftRight", "one", _SHIFT, _shift(False), scalar=True),
]}


def unary(spec: UnarySpec, dst, src, args, isSetMask: bool = True) -> None:
    key = call_key(current(), spec.name, (dst, src), args, isSetMask)
    cached_call(key, _unary, spec, dst, src, args, isSetMask)


def _unary(spec: UnarySpec, dst, src, args, isSetMask: bool) -> None:
    api = spec.name
    ctx = current()
    d_op, s_op = Operand("dstLocal", dst), Operand("srcLocal", src)
    check_vector_tensor(api, "dstLocal", dst)
    check_vector_tensor(api, "srcLocal", src)
    check_dtypes(api, "srcLocal", src, spec.dtypes.get(ctx.soc.arch, ()), ctx.soc)
    if dst.dtype is not src.dtype:
        raise ConstraintError(api, "dstLocal", "dst has the source's dtype", (dst.dtype, src.dtype))
    scalar = None
    if spec.scalar:
        if not args:
            raise ConstraintError(api, "scalarValue", "a scalar after srcLocal", None)
        scalar, args = args[0], args[1:]
    compute = spec.fn(ctx, src.dtype, scalar)
    E = 256 // src.dtype.itemsize
    _dispatch(api, spec.kind, [d_op], [s_op], compute, E, args, isSetMask, src.dtype.name)


def _dispatch(api, kind, dsts, srcs, compute, E, args, isSetMask, cost_dtype):
    if len(args) == 1:
        return count_form(api, kind, dsts, srcs, compute, E, args[0], cost_dtype)
    if len(args) != 3:
        raise ConstraintError(api, "arguments", "(..., count) or (..., mask, repeatTime, UnaryRepeatParams)",
                              len(args))
    mask, repeat, p = args
    if not isinstance(p, UnaryRepeatParams):
        if isinstance(p, (tuple, list)) and len(p) == 4:
            p = UnaryRepeatParams(*p)
        else:
            raise ConstraintError(api, "repeatParams", "a UnaryRepeatParams", p)
    dsts[0].blk, dsts[0].rep = p.dstBlkStride, p.dstRepStride
    if srcs:
        srcs[0].blk, srcs[0].rep = p.srcBlkStride, p.srcRepStride
    level0(api, kind, dsts, srcs, compute, E, mask, repeat, isSetMask, cost_dtype)


def _make(name: str):
    spec = SPECS[name]

    def api(dst, src, *args, isSetMask: bool = True):
        return unary(spec, dst, src, args, isSetMask)
    api.__name__ = api.__qualname__ = name
    api.__doc__ = f"AscendC::{name}" + (": (dst, src, scalarValue, count | mask, repeatTime, UnaryRepeatParams)"
                                         if spec.scalar else ": (dst, src, count | mask, repeatTime, UnaryRepeatParams)")
    return api


Relu = _make("Relu")
Exp = _make("Exp")
Ln = _make("Ln")
Abs = _make("Abs")
Sqrt = _make("Sqrt")
Rsqrt = _make("Rsqrt")
Reciprocal = _make("Reciprocal")
Not = _make("Not")
Adds = _make("Adds")
Muls = _make("Muls")
Maxs = _make("Maxs")
Mins = _make("Mins")
LeakyRelu = _make("LeakyRelu")
ShiftLeft = _make("ShiftLeft")
ShiftRight = _make("ShiftRight")

# Duplicate.md: every product npusim models lists bfloat16_t too.
_DUP = {a: (T.half, T.bfloat16_t, T.float, T.int16_t, T.uint16_t, T.int32_t, T.uint32_t) for a in _ALL_ARCH}


def Duplicate(dst, scalarValue, *args, isSetMask: bool = True) -> None:
    """``Duplicate(dst, scalar, count)`` | ``Duplicate(dst, scalar, mask, repeatTime, dstBlockStride,
    dstRepeatStride)``."""
    cached_call(call_key(current(), "Duplicate", (dst,), (scalarValue, *args), isSetMask), _duplicate, dst,
                scalarValue, args, isSetMask)


def _duplicate(dst, scalarValue, args, isSetMask) -> None:
    api = "Duplicate"
    ctx = current()
    check_vector_tensor(api, "dstLocal", dst)
    check_dtypes(api, "dstLocal", dst, _DUP.get(ctx.soc.arch, ()), ctx.soc)
    scalarValue = _args.scalar(api, "scalarValue", scalarValue, dst.dtype)
    v = cast(np.asarray([scalarValue], np.float64 if not dst.dtype.is_int else np.int64), dst.dtype)[0]
    d_op = Operand("dstLocal", dst)
    E = 256 // dst.dtype.itemsize
    if len(args) == 1:
        return count_form(api, "one", [d_op], [], lambda: v, E, args[0], dst.dtype.name)
    if len(args) != 4:
        raise ConstraintError(api, "arguments", "(dst, scalar, count) or (dst, scalar, mask, repeatTime, "
                              "dstBlockStride, dstRepeatStride)", len(args) + 2)
    mask, repeat, blk, rep = args
    from .rules import check_u8, check_u16
    d_op.blk, d_op.rep = check_u16(api, "dstBlockStride", blk), check_u8(api, "dstRepeatStride", rep)
    level0(api, "one", [d_op], [], lambda: v, E, mask, repeat, isSetMask, dst.dtype.name)
