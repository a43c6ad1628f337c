"""Two-source vector APIs on the level-0 engine: each API is one table row (dtypes, width, compute).

Every API has the vendor's three prototypes: ``(dst, src0, src1, count)``, ``(dst, src0, src1, mask,
repeatTime, BinaryRepeatParams)`` with ``mask`` an int (continuous) or ``[low, high]`` (bit mode), and
``isSetMask=False`` as a keyword.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..core.dtypes import cast
from ..core.errors import ConstraintError
from . import dtypes as T
from .context import current
from .repeat import BinaryRepeatParams, Operand, _run, cached_call, call_key3, count_form, level0
from .rules import check_dtypes, check_pair, check_vector_tensor

F16, F32 = np.float16, np.float32


def to(ctx, x, d):
    """Round a float32/float64 (or integer) result to dtype ``d`` as the vector unit does: RNE, integer
    saturation, and the core's float overflow mode."""
    if ctx.float_overflow == "inf":
        if x.dtype == d.np:
            return x
        if x.dtype == F32 and d.np == F16:
            # core.cast's own branch for this case (RINT, overflow to inf) is ``astype``; calling it
            # directly saves the dtype lookups and the errstate (warnings are off while a core runs).
            # Checked against core.cast in tests/ascendc/test_addrelucast.py::test_fast_half_round_equals_core_cast.
            return x.astype(F16)
    return cast(x, d, saturate=True, overflow=ctx.float_overflow)


def relu(x):
    return np.maximum(x, x.dtype.type(0))


def _wide(a):
    """Work precision: float32 for half (a half op computed in float32 and rounded once is correctly
    rounded: 24 >= 2*11+2 bits), the type itself otherwise."""
    return a.astype(F32) if a.dtype == F16 else a


def _wide2(op, a, b):
    """``op(_wide(a), _wide(b))`` in one numpy call for ufuncs (the dtype argument casts the inputs)."""
    if a.dtype == F16 and type(op) is np.ufunc:
        return op(a, b, dtype=F32)
    return op(_wide(a), _wide(b))


@dataclass(frozen=True)
class BinarySpec:
    name: str
    kind: str                                   # cost family (cost.vector_cycles)
    dtypes: dict                                # arch -> allowed src dtypes (same-type APIs)
    fn: Callable                                # fn(ctx, src_dtype, dst_dtype) -> compute(a, b)
    pairs: Callable | None = None               # soc -> allowed (src, dst) pairs (converting APIs)
    overlap_dst_src1: bool = False              # the Add family's documented dst == src1 exception


def _same(op):
    def make(ctx, s, d):
        def f(a, b):
            return to(ctx, _wide2(op, a, b), d)
        return f
    return make


def _int_or_float(op):
    """Integer operands wrap (two's complement, as the integer datapath does); floats round once."""
    def make(ctx, s, d):
        def f(a, b):
            if s.is_int:
                return op(a, b).astype(d.np, copy=False)
            return to(ctx, _wide2(op, a, b), d)
        return f
    return make


def relu_to_int(y, d):
    """relu, then RNE and saturation to the integer dtype ``d``, for a float array ``y``.

    Equal to ``cast(relu(y), d)`` (core RINT + saturate) on every input, in four whole-array calls
    instead of the general cast's ten: ``fmax(y, 0)`` is relu and sends NaN to 0 (the cast would send
    relu's NaN to 0 too); on values >= 0 saturation is only the upper clip (+inf -> max included).
    Checked against core.cast on ties, +-0, +-inf, NaN and out-of-range values in
    tests/ascendc/test_addrelucast.py::test_relu_to_int_equals_core_cast."""
    r = np.fmax(y, y.dtype.type(0))
    np.rint(r, out=r)
    np.minimum(r, y.dtype.type(d.max), out=r)
    return r.astype(d.np)


@functools.lru_cache(maxsize=None)
def half_relu_table(d) -> np.ndarray:
    """relu then core.cast (RNE, saturation) to the integer dtype ``d`` for every one of the 65536 half bit
    patterns: a half source's relu-and-cast is then one table lookup (one numpy call instead of five),
    equal to the cast by construction."""
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(F16).astype(F32)
    t = cast(np.fmax(every, F32(0)), d, saturate=True)
    t.setflags(write=False)
    return t


def _relu_cast(op):
    """AddReluCast / SubReluCast: y = src-type (a op b) (RNE / wrap); relu; cast to dst with RNE and
    saturation (ascendc.md §2.4). int16 goes through half exactly as the 950 path does (RINT, SAT)."""
    def make(ctx, s, d):
        if s.np == F16 and d.is_int and ctx.float_overflow == "inf":
            table = half_relu_table(d)

            def half_to_int(a, b):
                # numpy's half add / subtract is the float32 op rounded once to half, i.e. exactly
                # to(ctx, _wide2(op, a, b), s) below (a correctly rounded half op either way: 24 >= 2*11+2
                # bits); NaN payloads may differ but every NaN pattern maps to 0 in the table. Checked
                # against the general path in tests/ascendc/test_addrelucast.py::test_half_relu_cast_fast_path.
                return table.take(op(a, b).view(np.uint16))
            return half_to_int

        def f(a, b):
            if s.is_int:
                y = relu(op(a, b))                                  # int16 add wraps
                return cast(y, d, saturate=True)
            y = to(ctx, _wide2(op, a, b), s)                         # the add, rounded to the source type
            if d.is_int:
                if y.dtype == F16:
                    return half_relu_table(d).take(y.view(np.uint16))
                return relu_to_int(_wide(y), d)
            return cast(relu(y), d, saturate=True, overflow=ctx.float_overflow)
        return f
    return make


def _mul_cast(ctx, s, d):
    def f(a, b):
        y = to(ctx, _wide(a) * _wide(b), s)
        return cast(y, d, saturate=True)
    return f


def _add_deq_relu(ctx, s, d):
    scale = ctx.deq_scale

    def f(a, b):
        y = (a.astype(np.int64) + b.astype(np.int64)).astype(np.int32)   # int32 add wraps
        return cast(np.maximum(y.astype(np.float64) * scale, 0.0), d, saturate=True, overflow=ctx.float_overflow)
    return f


_ARITH = (T.half, T.float, T.int16_t, T.int32_t)
_A2 = {2201: _ARITH, 2002: _ARITH, 1001: _ARITH, 3002: _ARITH}
_FLOATS = {a: (T.half, T.float) for a in (2201, 2002, 1001, 3002)}
_RELU = {2201: (T.half, T.float, T.int16_t), 2002: (T.half, T.float, T.int16_t), 1001: (T.half, T.float),
         3002: (T.half, T.float)}
_BITS = {a: (T.int16_t, T.uint16_t) for a in (2201, 2002, 1001, 3002)}


def _relu_pairs(soc):
    return soc.addrelucast_pairs


def _mulcast_pairs(soc):
    return frozenset({(T.half, T.int8_t), (T.half, T.uint8_t)}) if soc.arch in (2201, 2002) else frozenset()


def _deq_pairs(soc):
    return frozenset({(T.int32_t, T.half)}) if soc.arch in (2201, 2002) else frozenset()


SPECS = {s.name: s for s in [
    BinarySpec("Add", "two", _A2, _int_or_float(np.add), overlap_dst_src1=True),
    BinarySpec("Sub", "two", _A2, _int_or_float(np.subtract), overlap_dst_src1=True),
    BinarySpec("Mul", "two", _A2, _int_or_float(np.multiply), overlap_dst_src1=True),
    BinarySpec("Div", "div", _FLOATS, _same(np.divide)),
    BinarySpec("Max", "two", _A2, _int_or_float(np.maximum), overlap_dst_src1=True),
    BinarySpec("Min", "two", _A2, _int_or_float(np.minimum), overlap_dst_src1=True),
    BinarySpec("AddRelu", "two", _RELU, _int_or_float(lambda a, b: relu(a + b)), overlap_dst_src1=True),
    BinarySpec("SubRelu", "two", _RELU, _int_or_float(lambda a, b: relu(a - b)), overlap_dst_src1=True),
    BinarySpec("And", "two", _BITS, lambda ctx, s, d: np.bitwise_and),
    BinarySpec("Or", "two", _BITS, lambda ctx, s, d: np.bitwise_or),
    BinarySpec("AddReluCast", "two", {}, _relu_cast(np.add), pairs=_relu_pairs),
    BinarySpec("SubReluCast", "two", {}, _relu_cast(np.subtract), pairs=_relu_pairs),
    BinarySpec("MulCast", "two", {}, _mul_cast, pairs=_mulcast_pairs),
    BinarySpec("AddDeqRelu", "two", {}, _add_deq_relu, pairs=_deq_pairs),
]}


def _overlap_exception(d: Operand, s: Operand) -> bool:
    return s.name == "src1Local" and d.t.addr == s.t.addr and (s.rep == 0 or d.rep == 0) and \
        d.t.dtype.name in ("float16", "int32", "float32")


def binary(spec: BinarySpec, dst, src0, src1, args, isSetMask: bool = True) -> None:
    ctx = current()
    key = call_key3(ctx, spec.name, dst, src0, src1, args, isSetMask)
    if key is not None:                    # repeat.cached_call's hit path, inlined (the per-call hot path)
        hit = ctx.fast.get(key)
        if hit is not None:
            _run(ctx, hit[0], hit[1], hit[2], hit[3])
            ctx.mask_high, ctx.mask_low, ctx.counter_mode = hit[4]
            return
    cached_call(key, _binary, spec, dst, src0, src1, args, isSetMask)


def _binary(spec: BinarySpec, dst, src0, src1, args, isSetMask: bool) -> None:
    api = spec.name
    ctx = current()
    ops = [Operand("dstLocal", dst), Operand("src0Local", src0), Operand("src1Local", src1)]
    for op in ops:
        check_vector_tensor(api, op.name, op.t)
    if src0.dtype is not src1.dtype:
        raise ConstraintError(api, "src1Local", "src0 and src1 have the same dtype", (src0.dtype, src1.dtype))
    s, d = src0.dtype, dst.dtype
    if spec.pairs is not None:
        check_pair(api, s, d, spec.pairs(ctx.soc), ctx.soc)
    else:
        allowed = spec.dtypes.get(ctx.soc.arch, ())
        check_dtypes(api, "src0Local", src0, allowed, ctx.soc)
        if d is not s:
            raise ConstraintError(api, "dstLocal", "dst has the sources' dtype", (d, s))
    E = 256 // max(s.itemsize, d.itemsize)
    ckey = (spec.name, s.name, d.name, ctx.float_overflow, ctx.deq_scale)
    compute = ctx.computes.get(ckey)
    if compute is None:
        compute = ctx.computes[ckey] = spec.fn(ctx, s, d)
    overlap_ok = _overlap_exception if spec.overlap_dst_src1 else None
    if len(args) == 1:
        return count_form(api, spec.kind, ops[:1], ops[1:], compute, E, args[0], s.name, overlap_ok)
    if len(args) != 3:
        raise ConstraintError(api, "arguments", "(dst, src0, src1, count) or (dst, src0, src1, mask, "
                              "repeatTime, BinaryRepeatParams)", len(args) + 3)
    mask, repeat, p = args
    if not isinstance(p, BinaryRepeatParams):
        if isinstance(p, (tuple, list)) and len(p) == 6:
            p = BinaryRepeatParams(*p)
        else:
            raise ConstraintError(api, "repeatParams", "a BinaryRepeatParams", p)
    ops[0].blk, ops[0].rep = p.dstBlkStride, p.dstRepStride
    ops[1].blk, ops[1].rep = p.src0BlkStride, p.src0RepStride
    ops[2].blk, ops[2].rep = p.src1BlkStride, p.src1RepStride
    level0(api, spec.kind, ops[:1], ops[1:], compute, E, mask, repeat, isSetMask, s.name, overlap_ok)


def _make(name: str):
    spec = SPECS[name]

    def api(dst, src0, src1, *args, isSetMask: bool = True):
        return binary(spec, dst, src0, src1, args, isSetMask)
    api.__name__ = api.__qualname__ = name
    api.__doc__ = f"AscendC::{name}: (dst, src0, src1, count) | (dst, src0, src1, mask, repeatTime, BinaryRepeatParams)"
    return api


Add = _make("Add")
Sub = _make("Sub")
Mul = _make("Mul")
Div = _make("Div")
Max = _make("Max")
Min = _make("Min")
AddRelu = _make("AddRelu")
SubRelu = _make("SubRelu")
And = _make("And")
Or = _make("Or")
AddReluCast = _make("AddReluCast")
SubReluCast = _make("SubReluCast")
MulCast = _make("MulCast")
AddDeqRelu = _make("AddDeqRelu")
