"""Shared pieces of the DNN dot operators: argument checks, maps in memory, window sums."""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError

Q_DNN = 12     # seed: "現状qは12でなければなりません"


def one_of(api: str, param: str, value: int, allowed) -> int:
    if value not in allowed:
        raise ConstraintError(api, param, f"{param} is one of {'/'.join(map(str, allowed))}", value)
    return value


def positive(api: str, param: str, value: int) -> int:
    if value < 1:
        raise ConstraintError(api, param, f"{param} >= 1", value)
    return value


def check_q(api: str, q: int, param: str = "q") -> None:
    if q != Q_DNN:
        raise ConstraintError(api, param, f"F16Qq's q is {Q_DNN} (the current implementation)", q)


def out_size(api: str, in_w: int, in_h: int, out_w: int, out_h: int, want_w: int, want_h: int, how: str) -> None:
    positive(api, "input width", in_w)
    positive(api, "input height", in_h)
    if want_w < 1 or want_h < 1:
        raise ConstraintError(api, "input width" if want_w < 1 else "input height",
                              f"the input is large enough for the window ({how})", (in_w, in_h))
    if out_w != want_w:
        raise ConstraintError(api, "output width", f"output width = {how} = {want_w}", out_w)
    if out_h != want_h:
        raise ConstraintError(api, "output height", f"output height = {how} = {want_h}", out_h)


def windows(x: np.ndarray, k: int, s: int, out_h: int, out_w: int):
    """Yield (dy, dx, view): for each kernel tap, the (out_h, out_w) strided slice of the (padded) map
    ``x`` that the tap multiplies. Whole-array work: k*k slices, no per-element loop."""
    for dy in range(k):
        for dx in range(k):
            yield dy, dx, x[dy:dy + s * (out_h - 1) + 1:s, dx:dx + s * (out_w - 1) + 1:s]


def box_sum(x: np.ndarray, k: int) -> np.ndarray:
    """Sum over the k x k window centred on each element of a 2-D int64 map, zero outside (integral
    image: exact)."""
    p = (k - 1) // 2
    h, w = x.shape
    xp = np.zeros((h + k, w + k), np.int64)
    xp[p + 1:p + 1 + h, p + 1:p + 1 + w] = x
    c = xp.cumsum(0).cumsum(1)
    return c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]


def div_round(a: np.ndarray, d) -> np.ndarray:
    """a / d rounded half up, for int64 a and positive int64 d (exact integer arithmetic)."""
    return np.floor_divide(2 * a + d, 2 * np.asarray(d, np.int64))


def isqrt(a: np.ndarray) -> np.ndarray:
    """floor(sqrt(a)) for non-negative int64 a below 2**52 (a float guess, then exact integer fix-ups)."""
    r = np.floor(np.sqrt(a.astype(np.float64))).astype(np.int64)
    r -= (r * r > a)
    r += ((r + 1) * (r + 1) <= a)
    return r
