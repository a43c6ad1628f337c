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
_FIVE = {R.CAST_RINT, R.CAST_FLOOR, R.CAST_CEIL, R.CAST_ROUND, R.CAST_TRUNC}
_NONE = {R.CAST_NONE}

# (src, dst) -> accepted modes, A2/A3 (Cast.md table, ascendc.md §2.2; pairs not listed there follow the
# same pattern: exact widening takes CAST_NONE only, narrowing takes NONE + the five).
_A2 = {
    (T.float, T.half): _NONE | _FIVE | {R.CAST_ODD},
    (T.half, T.float): _NONE,
    (T.half, T.int8_t): _NONE | _FIVE,
    (T.half, T.uint8_t): _NONE | _FIVE,
    (T.half, T.int16_t): _NONE | _FIVE,
    (T.half, T.int32_t): _NONE | _FIVE,
    (T.int16_t, T.half): _NONE | _FIVE,
    (T.int8_t, T.half): _NONE,
    (T.uint8_t, T.half): _NONE,
    (T.float, T.int32_t): _NONE | _FIVE,
    (T.float, T.int16_t): _NONE | _FIVE,
    (T.int32_t, T.float): _NONE | _FIVE,
    (T.float, T.float): _FIVE,
    (T.float, T.bfloat16_t): _NONE | _FIVE,
    (T.bfloat16_t, T.float): _NONE,
}
# 310P and 910A: half->int8 has no RINT; float->half takes ODD/NONE only; no bfloat16.
_OLD = {k: v for k, v in _A2.items() if T.bfloat16_t not in k}
_OLD[(T.half, T.int8_t)] = _NONE | _FIVE - {R.CAST_RINT}
_OLD[(T.half, T.uint8_t)] = _NONE | _FIVE - {R.CAST_RINT}
_OLD[(T.float, T.half)] = {R.CAST_NONE, R.CAST_ODD}
PAIRS = {2201: _A2, 3002: _A2, 2002: _OLD, 1001: _OLD}


def _compute(ctx, s, d, mode: RoundMode):
    rm = _CORE[mode]
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
    if round_mode not in modes:
        raise ConstraintError(api, "round_mode", f"{asc_name(s)}->{asc_name(d)} on {ctx.soc.name} accepts "
                              f"{', '.join(sorted(m.name for m in modes))}", round_mode.name)
    E = 256 // max(s.itemsize, d.itemsize)
    _dispatch(api, "one", [Operand("dstLocal", dst)], [Operand("srcLocal", src)], _compute(ctx, s, d, round_mode),
              E, args, isSetMask, s.name)
