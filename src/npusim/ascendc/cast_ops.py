"""Cast with every RoundMode (ascendc.md §2): pairs and accepted modes per SoC family.

CAST_NONE rounds like CAST_RINT when the conversion loses precision (and is exact otherwise); integer
targets saturate; float targets follow the core's overflow mode (INF/NaN or saturation, per SoC).
"""
from __future__ import annotations

import enum

import numpy as np

from ..core.dtypes import RoundMode as CoreRound, cast, round_integer
from ..core.errors import ConstraintError, UnsupportedError
from . import dtypes as T
from .context import current
from .dtypes import asc_name
from .repeat import Operand, cached_call, call_key
from .rules import check_vector_tensor
from .vector_unary import _dispatch


class RoundMode(enum.Enum):
    CAST_NONE = 0
    CAST_RINT = 1
    CAST_FLOOR = 2
    CAST_CEIL = 3
    CAST_ROUND = 4
    CAST_TRUNC = 5
    CAST_ODD = 6
    CAST_HYBRID = 7


_CORE = {RoundMode.CAST_NONE: CoreRound.RINT, RoundMode.CAST_RINT: CoreRound.RINT,
         RoundMode.CAST_FLOOR: CoreRound.FLOOR, RoundMode.CAST_CEIL: CoreRound.CEIL,
         RoundMode.CAST_ROUND: CoreRound.ROUND, RoundMode.CAST_TRUNC: CoreRound.TRUNC,
         RoundMode.CAST_ODD: CoreRound.ODD}

R = RoundMode
_FIVE = frozenset({R.CAST_RINT, R.CAST_FLOOR, R.CAST_CEIL, R.CAST_ROUND, R.CAST_TRUNC})
_NONE = frozenset({R.CAST_NONE})
_N5 = _NONE | _FIVE
_ALL_MODES = frozenset(R) - {R.CAST_HYBRID}
#: int32_t -> half ignores roundMode and scales by the SetDeqScale register (Cast.md: "roundMode不生效").
DEQ = "deq"

# (src, dst) -> accepted modes, one table per product, transcribed from the vendor Cast page (Cast.md,
# "支持的数据类型组合情况"); a pair absent from a table is a ConstraintError. int4b_t rows are omitted
# (npusim has no int4 tensors).
_A2 = {
    (T.int8_t, T.half): _NONE, (T.uint8_t, T.half): _NONE,
    (T.int16_t, T.half): _N5, (T.int16_t, T.float): _NONE,
    (T.half, T.int8_t): _N5, (T.half, T.uint8_t): _N5,
    (T.half, T.int16_t): _FIVE, (T.half, T.int32_t): _FIVE, (T.half, T.float): _NONE,
    (T.bfloat16_t, T.int32_t): _FIVE, (T.bfloat16_t, T.float): _NONE,
    (T.int32_t, T.int16_t): _NONE, (T.int32_t, T.half): DEQ, (T.int32_t, T.float): _N5,
    (T.int32_t, T.int64_t): _NONE,
    (T.float, T.int16_t): _FIVE, (T.float, T.half): _N5 | {R.CAST_ODD}, (T.float, T.bfloat16_t): _FIVE,
    (T.float, T.int32_t): _FIVE, (T.float, T.float): _FIVE, (T.float, T.int64_t): _FIVE,
    (T.int64_t, T.int32_t): _NONE, (T.int64_t, T.float): _FIVE,
}
# Atlas 200I/500 A2 (310B): the A2 table, but int32_t -> half is a plain CAST_NONE conversion.
_310B = {**_A2, (T.int32_t, T.half): _NONE}
# Atlas inference AI Core (310P).
_310P = {
    (T.int8_t, T.half): _NONE, (T.uint8_t, T.half): _NONE, (T.int16_t, T.half): _NONE,
    (T.half, T.int8_t): _N5 - {R.CAST_RINT}, (T.half, T.uint8_t): _N5 - {R.CAST_RINT},
    (T.half, T.int16_t): frozenset({R.CAST_RINT}), (T.half, T.int32_t): _FIVE, (T.half, T.float): _NONE,
    (T.int32_t, T.int16_t): _NONE, (T.int32_t, T.half): DEQ, (T.int32_t, T.float): _NONE,
    (T.float, T.half): frozenset({R.CAST_ODD, R.CAST_NONE}), (T.float, T.int64_t): _FIVE,
}
# Atlas training (910A): the 310P table without half -> int16_t and int32_t -> int16_t/half.
_910A = {k: v for k, v in _310P.items()
         if k not in {(T.half, T.int16_t), (T.int32_t, T.int16_t), (T.int32_t, T.half)}}
PAIRS = {2201: _A2, 3002: _310B, 2002: _310P, 1001: _910A}


def _compute(ctx, s, d, mode: RoundMode, deq: bool = False):
    rm = _CORE[mode]
    if deq:                                      # int32 -> half: float(x) * deqScale, rounded once
        scale = ctx.deq_scale
        return lambda a: cast(a.astype(np.float64) * scale, d, saturate=True, overflow=ctx.float_overflow)
    if s == d:                                   # float -> float: round to an integral value
        return lambda a: round_integer(a.astype(np.float64), rm).astype(d.np)
    return lambda a: cast(a, d, round=rm, saturate=True, overflow=ctx.float_overflow)


def Cast(dst, src, round_mode: RoundMode, *args, isSetMask: bool = True) -> None:
    """``Cast(dst, src, roundMode, count)`` | ``Cast(dst, src, roundMode, mask, repeatTime, UnaryRepeatParams)``."""
    cached_call(call_key(current(), "Cast", (dst, src), (round_mode, *args), isSetMask), _cast, dst, src,
                round_mode, args, isSetMask)


def _cast(dst, src, round_mode, args, isSetMask) -> None:
    api = "Cast"
    ctx = current()
    check_vector_tensor(api, "dstLocal", dst)
    check_vector_tensor(api, "srcLocal", src)
    if not isinstance(round_mode, RoundMode):
        raise ConstraintError(api, "round_mode", "a RoundMode", round_mode)
    if round_mode is RoundMode.CAST_HYBRID:
        raise UnsupportedError(api, "CAST_HYBRID", "stochastic rounding exists for hifloat8 only")
    table = PAIRS[ctx.soc.arch]
    s, d = src.dtype, dst.dtype
    modes = table.get((s, d))
    if modes is None:
        raise ConstraintError(api, "dtype", f"a src->dst pair Cast supports on {ctx.soc.name}",
                              f"{asc_name(s)}->{asc_name(d)}")
    deq = modes is DEQ
    if deq:                                      # roundMode has no effect on this pair
        modes = _ALL_MODES
    if round_mode not in modes:
        raise ConstraintError(api, "round_mode", f"{asc_name(s)}->{asc_name(d)} on {ctx.soc.name} accepts "
                              f"{', '.join(sorted(m.name for m in modes))}", round_mode.name)
    E = 256 // max(s.itemsize, d.itemsize)
    _dispatch(api, "one", [Operand("dstLocal", dst)], [Operand("srcLocal", src)],
              _compute(ctx, s, d, round_mode, deq), E, args, isSetMask, s.name)
