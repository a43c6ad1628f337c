"""Advanced elementwise APIs: Sigmoid, Tanh, Gelu, FasterGelu, and Exp<T, taylorExpandLevel, isReuseSource>.

Prototypes (template arguments as keywords or ``Api[T, ...]``, template.py):

    Sigmoid(dst, src[, sharedTmpBuffer][, calCount])                      <T, isReuseSource>
    Tanh(dst, src[, sharedTmpBuffer][, calCount])                         <T, isReuseSource>
    Gelu(dst, src[, sharedTmpBuffer], dataSize)                           <T, highPrecision, highPerformance>
    FasterGelu(dst, src[, sharedTmpBuffer], dataSize)                     <T, highPrecision, highPerformance>
    Exp(dst, src[, sharedTmpBuffer], calCount)                            <T, taylorExpandLevel, isReuseSource>

Each replays the vendor's instruction sequence (asc-devkit impl/adv_api/detail/activation/{sigmoid,gelu},
detail/math/{tanh,exp}; 2201 paths) with each step's rounding (adv_common.Steps):
* Sigmoid: Muls(-1), Exp, Adds(1), Div(1, ·), all in T.
* Tanh: in float (half cast up, CAST_NONE, and back): clip to [-8.8, 8.8], e = Exp(2x), (e - 1) / (e + 1).
* Gelu: y = 1.5957691216057308·(x + 0.044715·x³); x / (Exp(-|y|) + 1) · Exp(min(y, 0)); in T, or in float
  for half with highPrecision; highPerformance uses Reciprocal + Mul for the division.
* FasterGelu: x / (1 + Exp(-1.702·x)), same precision switches.
* Exp with taylorExpandLevel > 0: in float, e^⌊x⌋ (Exp of the floor) times the Taylor series of the
  fraction to that many terms (1/i as a float multiplier, each term added in float); level 0 is the
  basic Exp.
Minimum temporary space (impl/adv_api/tiling): Sigmoid 256 B; Tanh 256 B float, 1024 B half; Gelu and
FasterGelu 768 B; Exp 4·256 B half, 3·256 B float (2·256 B with isReuseSource). dst and src may not overlap
(Sigmoid.md, Gelu.md); sharedTmpBuffer overlaps neither.
"""
from __future__ import annotations

import numpy as np

from ..core.dtypes import RoundMode as CoreRound
from . import dtypes as T
from .adv_common import (Steps, check_template_t, check_tensors, count_of, no_overlap, read, split_args,
                         tmp_footprint, write)
from .context import current
from .template import TemplateFn, template
from .vector_unary import Exp as _basic_exp

_F = T.float
# Products per page (产品支持情况): Sigmoid.md A2/A3, 310P AI Core, Atlas training; Tanh.md, Gelu.md,
# FasterGelu.md A2/A3 and 310P AI Core; Exp-81.md (the advanced Exp) A2/A3 only. T is half or float.
_PRODUCTS = {"Sigmoid": (2201, 2002, 1001), "Tanh": (2201, 2002), "Gelu": (2201, 2002), "FasterGelu": (2201, 2002),
             "Exp": (2201,)}


def _types(api, ctx):
    from ..core.errors import UnsupportedError
    if ctx.soc.arch not in _PRODUCTS[api]:
        raise UnsupportedError(api, f"the advanced {api} on {ctx.soc.name}", "not supported on this product "
                               f"({api}.md 产品支持情况)")
    return (T.half, T.float)


def _run(api, dst, src, args, T_, min_tmp, body, overlap_ok=False):
    """Common shape of the elementwise advanced APIs: checks, tmp, compute ``body(steps, x) -> y``, event."""
    ctx = current()
    check_tensors(api, ctx, _types(api, ctx), dstTensor=dst, srcTensor=src)
    check_template_t(api, T_, src)
    if dst.dtype is not src.dtype:
        from ..core.errors import ConstraintError
        raise ConstraintError(api, "dstTensor", "dst and src have the same T", (dst.dtype, src.dtype))
    tmp, rest = split_args(args)
    if len(rest) > 1:
        from ..core.errors import ConstraintError
        raise ConstraintError(api, "arguments", f"{api}(dstTensor, srcTensor[, sharedTmpBuffer][, calCount])",
                              len(args) + 2)
    n = count_of(api, rest[0] if rest else None, src, dst)
    if not overlap_ok:
        no_overlap(api, dst, src, "dstTensor")
    tmp_fp = tmp_footprint(api, ctx, tmp, min_tmp(src.dtype), dst, src)
    if n == 0:
        return ctx.place("PIPE_V", api, 0)
    x, sv = read(api, src, n)
    st = Steps(ctx, n)
    y = body(st, x)
    dv = write(api, dst, np.asarray(y))
    ctx.place("PIPE_V", api, st.cycles, reads=[sv.footprint], writes=[dv.footprint, tmp_fp],
              nbytes=2 * n * src.dtype.itemsize, elements=n, args={"instructions": st.count})


@template("T", "isReuseSource")
def Sigmoid(dstTensor, srcTensor, *args, T=None, isReuseSource=False) -> None:
    def body(st, x):
        d = srcTensor.dtype
        y = st.u("Muls", x, d, -1.0)
        y = st.u("Exp", y, d)
        y = st.u("Adds", y, d, 1.0)
        return st.b("Div", st.dup(1.0, d), y, d)
    _run("Sigmoid", dstTensor, srcTensor, args, T, lambda d: 256, body)


@template("T", "isReuseSource")
def Tanh(dstTensor, srcTensor, *args, T=None, isReuseSource=False) -> None:
    def body(st, x):
        d = srcTensor.dtype
        f = st.cast(x, _F) if d is not _F else x
        c = st.u("Mins", f, _F, 8.8)
        c = st.u("Maxs", c, _F, -8.8)
        c = st.u("Muls", c, _F, 2.0)
        e = st.u("Exp", c, _F)
        num = st.u("Adds", e, _F, -1.0)
        den = st.u("Adds", e, _F, 1.0)
        y = st.b("Div", num, den, _F)
        return st.cast(y, d) if d is not _F else y
    _run("Tanh", dstTensor, srcTensor, args, T, lambda d: 256 if d is _F else 1024, body)


def _gelu_body(src, high_precision, high_performance, fast):
    def body(st, x):
        d = src.dtype
        w = _F if (high_precision and d is T.half) else d
        xw = st.cast(x, w, CoreRound.RINT) if w is not d else x
        if fast:
            a = st.u("Muls", xw, w, -1.702)
            a = st.u("Exp", a, w)
            a = st.u("Adds", a, w, 1.0)
            y = _divide(st, xw, a, w, high_performance)
        else:
            a = st.b("Mul", xw, xw, w)
            b = st.b("Mul", xw, a, w)
            a = st.u("Muls", b, w, 0.044715)
            b = st.b("Add", xw, a, w)
            yv = st.u("Muls", b, w, 1.5957691216057308)
            e_neg = st.u("Exp", st.u("Mins", yv, w, 0.0), w)            # exp(min(y, 0))
            a = st.u("Abs", yv, w)
            a = st.u("Muls", a, w, -1.0)
            a = st.u("Exp", a, w)
            a = st.u("Adds", a, w, 1.0)
            a = _divide(st, xw, a, w, high_performance)               # x / (exp(-|y|) + 1)
            y = st.b("Mul", a, e_neg, w)
        return st.cast(y, d) if w is not d else y
    return body


def _divide(st, num, den, w, high_performance):
    if high_performance:
        return st.b("Mul", num, st.u("Reciprocal", den, w), w)
    return st.b("Div", num, den, w)


@template("T", "highPrecision", "highPerformance")
def Gelu(dstLocal, srcLocal, *args, T=None, highPrecision=False, highPerformance=False) -> None:
    _run("Gelu", dstLocal, srcLocal, args, T, lambda d: 768,
         _gelu_body(srcLocal, highPrecision, highPerformance, fast=False))


@template("T", "highPrecision", "highPerformance")
def FasterGelu(dstLocal, srcLocal, *args, T=None, highPrecision=False, highPerformance=False) -> None:
    _run("FasterGelu", dstLocal, srcLocal, args, T, lambda d: 768,
         _gelu_body(srcLocal, highPrecision, highPerformance, fast=True))


def _exp_min_tmp(reuse):
    return lambda d: 256 * (4 if d is T.half else (2 if reuse else 3))


def _exp_taylor(src, level):
    def body(st, x):
        d = src.dtype
        f = st.cast(x, _F) if d is not _F else st.u("Adds", x, _F, 0.0)
        fl = st.cast(f, _F, CoreRound.FLOOR)                           # Cast<float, float>(FLOOR)
        frac = st.b("Sub", f, fl, _F)
        e_int = st.u("Exp", fl, _F)
        pw = st.u("Adds", frac, _F, 0.0)
        res = st.u("Adds", frac, _F, 1.0)
        for i in range(2, level + 1):
            pw = st.b("Mul", frac, pw, _F)
            pw = st.u("Muls", pw, _F, np.float32(1.0) / np.float32(i))
            res = st.b("Add", res, pw, _F)
        res = st.b("Mul", res, e_int, _F)
        return st.cast(res, d) if d is not _F else res
    return body


def _exp(dst, src, *args, T=None, taylorExpandLevel=None, isReuseSource=False, isSetMask=True):
    """The basic Exp (count or level-0 form) unless a template argument or a sharedTmpBuffer says advanced."""
    advanced = taylorExpandLevel is not None or (args and isinstance(args[0], type(src)))
    if not advanced:
        return _basic_exp(dst, src, *args, isSetMask=isSetMask)
    from .args import as_int
    level = 10 if taylorExpandLevel is None else as_int("Exp", "taylorExpandLevel", taylorExpandLevel, 0, 255)
    if level == 0:
        tmp, rest = split_args(args)
        return _basic_exp(dst, src, rest[0] if rest else src.size)
    _run("Exp", dst, src, args, T, _exp_min_tmp(isReuseSource), _exp_taylor(src, level), overlap_ok=True)


Exp = TemplateFn(_exp, ("T", "taylorExpandLevel", "isReuseSource"))
