"""The ScalarE activation function table: ``nl.exp``, ``nl.tanh``, ``nl.gelu`` ... as values.

Each ``ActFunc`` is the ``op`` of ``nisa.activation`` and, called on a tile, the language function
(``nl.exp(x)``: a new SBUF tile through one activation). Functions are numpy's float32 ufuncs (exp, log,
tanh, sqrt, sin ...: within about 1 ulp) or float64 formulas rounded to float32 (sigmoid, gelu, silu,
softplus, mish, erf).

Documented input ranges ([SDK] nki.api.shared.rst, activation table): log [2^-64, 2^64], sin [-pi, pi],
rsqrt [2^-87, 2^97], reciprocal +-[2^-42, 2^42]. The hardware evaluates piecewise polynomials that are
only valid there; an input outside raises ``ActivationRangeWarning`` (an error in strict mode). ``sin``
does no range reduction: outside [-pi, pi] the hardware's outer segment is extrapolated, which the
docs illustrate with sin(9.0) = 27.65. npusim reproduces that with the segment t - t^3/6, t = pi - x
(reflected for x < -pi): it gives 27.652 at 9.0.

The functions raise no floating-point warnings of their own: they run only inside ``nisa.activation``,
under the kernel run's ``np.errstate(all="ignore")`` (runtime.activate; lnc.py's program threads set the
same), where exp overflowing to inf or log(0) = -inf are results, not warnings.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np


class ActivationRangeWarning(UserWarning):
    """An activation input lies outside the function's documented valid range."""


def _sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(np.float32)


# numpy has no erf (and scipy is no dependency): the erfc Chebyshev fit of Numerical Recipes
# (fractional error < 1.2e-7 everywhere), evaluated in float64.
def _erf(x):
    z = np.abs(x.astype(np.float64))
    t = 1.0 / (1.0 + 0.5 * z)
    poly = (-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277)))))))))
    erfc = t * np.exp(poly)
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0)


def _gelu(x):
    x64 = x.astype(np.float64)
    return (0.5 * x64 * (1.0 + _erf(x64 / math.sqrt(2.0)))).astype(np.float32)


def _gelu_dx(x):
    x64 = x.astype(np.float64)
    cdf = 0.5 * (1.0 + _erf(x64 / math.sqrt(2.0)))
    pdf = np.exp(-0.5 * x64 * x64) / math.sqrt(2.0 * math.pi)
    return (cdf + x64 * pdf).astype(np.float32)


def _gelu_tanh(x):
    x64 = x.astype(np.float64)
    return (0.5 * x64 * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x64 + 0.044715 * x64 ** 3)))).astype(np.float32)


def _silu(x):
    x64 = x.astype(np.float64)
    return (x64 / (1.0 + np.exp(-x64))).astype(np.float32)


def _silu_dx(x):
    x64 = x.astype(np.float64)
    s = 1.0 / (1.0 + np.exp(-x64))
    return (s * (1.0 + x64 * (1.0 - s))).astype(np.float32)


def _softplus(x):
    return np.logaddexp(0.0, x.astype(np.float64)).astype(np.float32)


def _mish(x):
    x64 = x.astype(np.float64)
    return (x64 * np.tanh(np.logaddexp(0.0, x64))).astype(np.float32)


def _sin(x):
    """sin without range reduction: exact inside [-pi, pi], the outer segment extrapolated outside."""
    r = np.sin(x)
    out = np.abs(x) > np.float32(math.pi)
    if out.any():
        xo = x[out].astype(np.float64)
        t = math.pi - np.abs(xo)
        r = np.array(r, copy=True)
        r[out] = (np.sign(xo) * (t - t ** 3 / 6.0)).astype(np.float32)
    return r


def _rsqrt(x):
    return np.float32(1.0) / np.sqrt(x)


#: gelu_apprx_sigmoid is ``x * sigmoid(1.702 x)`` (Hendrycks & Gimpel's sigmoid approximation; the NKI
#: docstring only says "GELU approximation using sigmoid", so the constant is npusim's choice).
GELU_SIGMOID_K = 1.702


def _gelu_sigmoid(x):
    x64 = x.astype(np.float64)
    return (x64 / (1.0 + np.exp(-GELU_SIGMOID_K * x64))).astype(np.float32)


def _gelu_sigmoid_dx(x):
    x64 = x.astype(np.float64)
    s = 1.0 / (1.0 + np.exp(-GELU_SIGMOID_K * x64))
    return (s + GELU_SIGMOID_K * x64 * s * (1.0 - s)).astype(np.float32)


def _erf_dx(x):
    """d/dx erf(x) = 2/sqrt(pi) * exp(-x^2), in float64 rounded to fp32."""
    x64 = x.astype(np.float64)
    return (2.0 / math.sqrt(math.pi) * np.exp(-x64 * x64)).astype(np.float32)


def prelu(x, alpha=np.float32(0.0)):
    """PReLU: x where x >= 0, else alpha * x (fp32). ``alpha`` is activate2's ``relu_param`` (a scalar or
    a per-partition column); ``activation`` has no relu_param, so there it is 0 (a ReLU)."""
    with np.errstate(all="ignore"):
        return np.where(x >= 0, x, (x * np.float32(alpha)) if np.ndim(alpha) == 0 else x * alpha
                        ).astype(np.float32, copy=False)


@dataclass(frozen=True, eq=False)
class ActFunc:
    name: str
    fn: Callable            # float32 array -> float32 array
    lo: float | None = None     # documented valid input range [lo, hi] (None: no published limit)
    hi: float | None = None
    magnitude: bool = False     # the range applies to |x| (reciprocal: +-[2^-42, 2^42])

    def __call__(self, x, dtype=None, **kw):
        from . import language_two
        return language_two.activation_call(self, x, dtype=dtype)

    def __repr__(self) -> str:
        return f"nl.{self.name}"

    def out_of_range(self, x: np.ndarray) -> np.ndarray | None:
        """A boolean mask of inputs outside the documented range, or None when all are inside."""
        if self.lo is None:
            return None
        v = np.abs(x) if self.magnitude else x
        lo, hi = np.float32(self.lo), np.float32(self.hi)
        if x.size == 0 or (v.min() >= lo and v.max() <= hi):
            return None
        bad = (v < lo) | (v > hi)
        return bad if bad.any() else None       # NaNs (poison) fail both tests above but are not outside


_ACTS = [
    ActFunc("copy", lambda x: x), ActFunc("identity", lambda x: x),
    ActFunc("exp", np.exp), ActFunc("log", np.log, 2.0 ** -64, 2.0 ** 64),
    ActFunc("sin", _sin, -math.pi, math.pi), ActFunc("cos", lambda x: np.cos(x)),
    ActFunc("tanh", np.tanh), ActFunc("sigmoid", _sigmoid), ActFunc("relu", lambda x: np.maximum(x, np.float32(0))),
    ActFunc("gelu", _gelu), ActFunc("gelu_dx", _gelu_dx), ActFunc("gelu_apprx_tanh", _gelu_tanh),
    ActFunc("silu", _silu), ActFunc("silu_dx", _silu_dx), ActFunc("softplus", _softplus), ActFunc("mish", _mish),
    ActFunc("square", np.square), ActFunc("sqrt", np.sqrt), ActFunc("rsqrt", _rsqrt, 2.0 ** -87, 2.0 ** 97),
    ActFunc("reciprocal", np.reciprocal, 2.0 ** -42, 2.0 ** 42, magnitude=True),
    ActFunc("abs", np.abs), ActFunc("sign", np.sign), ActFunc("erf", lambda x: _erf(x).astype(np.float32)),
    ActFunc("arctan", np.arctan),
    ActFunc("gelu_apprx_sigmoid", _gelu_sigmoid), ActFunc("gelu_apprx_sigmoid_dx", _gelu_sigmoid_dx),
    # the current activation table's PReLU and Erf Derivative ([SDK] nki.api.shared.rst, tbl-act-func)
    ActFunc("prelu", prelu), ActFunc("erf_dx", _erf_dx),
]
ACT: dict[str, ActFunc] = {a.name: a for a in _ACTS}

#: ALU ops and numpy functions that name an activation function (``activation(op=nl.rsqrt)``, np.exp).
ALIASES = {np.exp: "exp", np.log: "log", np.sin: "sin", np.cos: "cos", np.tanh: "tanh", np.square: "square",
           np.sqrt: "sqrt", np.abs: "abs", np.sign: "sign", np.arctan: "arctan", np.reciprocal: "reciprocal"}


def lookup(op) -> ActFunc | None:
    if isinstance(op, ActFunc):
        return op
    try:
        name = ALIASES.get(op)
    except TypeError:
        name = None
    if name is None:
        name = getattr(op, "name", None) or getattr(op, "__name__", None)
        if name not in ACT or not (hasattr(op, "cls") or getattr(op, "__module__", "").startswith("npusim.nki")):
            return None
    return ACT.get(name)
