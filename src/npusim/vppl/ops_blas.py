"""BLAS-like dot operators (seed 003, BLAS類似演算子): Y = mA (u x v) * X (v) + B (u), F16Qq, q in {8, 10, 12},
optional ReLU (FPBLmAvX_uB_L's 13th argument).

Memory layout (what the seed's padding tool produces): v is processed in multiples of 32 and u in multiples
of 8, so with vp = ceil32(v), up = ceil8(u):
    mA: up rows x vp columns of F16Qq, row-major, contiguous;  X: vp elements;  B, Y: up elements.
The padding must be zero (``pad_fpbl`` does it, as the vendor's tool does before vFile loads the data);
nonzero padding in mA raises (it would change the result). X's and B's padding multiply zero columns
or land in the padding rows of Y, so they may hold anything.

Arithmetic (docs/vppl.md (part two)): products Q2q exact, summed exactly (|sum| <= 1024 * 2**30 < 2**41),
B added as B << q, one right shift by q rounding half up, saturated to F16, then ReLU (max(y, 0)).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from .fixed_point import sat16, shift_round
from .pointers import load, store
from .readings_part_two import readings
from .work_area import capacity16, check_allocated, leave

Q_ALLOWED = (8, 10, 12)      # seed: "qは8,10,12の中で指定できます"
V_MAX_L = 1024               # seed, FPBLmAvX_uB_L: "vは1024まで"
V_MAX = 256                  # seed, FPBLmAvX_uB: "現状、vは256まで、uは128までです"
U_MAX = 128
V_BLOCK, U_BLOCK = 32, 8     # seed: "vは32の倍数毎に処理" / "uは8の倍数毎処理"
X_PER_VECTOR = 256           # reading: 4 X vectors for v <= 1024, 1 for v <= 256 -> 256 elements each


def padded(u: int, v: int) -> tuple[int, int]:
    return -(-u // U_BLOCK) * U_BLOCK, -(-v // V_BLOCK) * V_BLOCK


def pad_fpbl(A, b=None, x=None):
    """The padding tool: mA (u x v) -> (ceil8(u) x ceil32(v)) with zero fill; b -> ceil8(u); x -> ceil32(v).
    Returns (A, b, x) padded (b / x None when not given), in A's dtype."""
    A = np.asarray(A)
    u, v = A.shape
    up, vp = padded(u, v)
    Ap = np.zeros((up, vp), A.dtype)
    Ap[:u, :v] = A
    bp = None if b is None else np.concatenate([np.asarray(b, A.dtype), np.zeros(up - u, A.dtype)])
    xp = None if x is None else np.concatenate([np.asarray(x, A.dtype), np.zeros(vp - v, A.dtype)])
    return Ap, bp, xp


def _check(api, q, u, v, vmax, umax, relu=0):
    if q not in Q_ALLOWED:
        raise ConstraintError(api, "q", "q is 8, 10 or 12", q)
    if not 1 <= v <= vmax:
        raise ConstraintError(api, "v", f"1 <= v <= {vmax}", v)
    if u < 1 or (umax is not None and u > umax):
        raise ConstraintError(api, "u", "u >= 1" if umax is None else f"1 <= u <= {umax}", u)
    if relu not in (0, 1):
        raise ConstraintError(api, "relu", "0 (output as is) or 1 (apply ReLU)", relu)


def _need(api, param, vec, n):
    check_allocated(api, param, vec)
    if capacity16(vec) < n:
        raise ConstraintError(api, param, f"the vector holds {n} F16 elements", f"{vec.name}: {capacity16(vec)}")


def gemv(m, api, q, u, v, pX, pY, pB, pA, relu):
    """Load, compute, store; returns (X, B, Y) raw int16 arrays (padded sizes)."""
    up, vp = padded(u, v)
    X = load(api, "X pointer", pX, np.int16, vp)
    B = load(api, "B pointer", pB, np.int16, up)
    A = load(api, "mA pointer", pA, np.int16, up * vp).reshape(up, vp)
    if A[:, v:].any() or A[u:].any():
        # seed: "係数データは32の倍数となるようにあらかじめ0フィル調整が必要です … u方向への0フィル調整も必要"
        raise ConstraintError(api, "mA pointer", f"mA is zero-padded to {up} x {vp} (columns v..ceil32(v) and "
                              f"rows u..ceil8(u) zero: run the padding tool, pad_fpbl)",
                              f"{int(np.count_nonzero(A[:, v:]) + np.count_nonzero(A[u:, :v]))} nonzero padding "
                              f"element(s)")
    # float64 BLAS is exact here: every partial sum is an integer below 2**41 < 2**53
    acc = (A.astype(np.float64) @ X.astype(np.float64)).astype(np.int64) + (B.astype(np.int64) << q)
    y = sat16(shift_round(acc, q, readings(m).shift_rounding))
    if relu:
        np.maximum(y, 0, out=y)
    store(api, "Y pointer", pY, y)
    return X, B, y


def FPBLmAvX_uB_L(m, row, t, q, u, v, x0, x1, x2, x3, bvec, pX, pY, pB, pA, relu):
    api = row.name
    _check(api, q, u, v, V_MAX_L, None, relu)
    up, vp = padded(u, v)
    check_allocated(api, "target", t)
    xs = (x0, x1, x2, x3)
    for k, xv in enumerate(xs):
        _need(api, f"X vector {k}", xv, max(0, min(X_PER_VECTOR, vp - X_PER_VECTOR * k)))
    _need(api, "B vector", bvec, U_BLOCK)
    if capacity16(t) < U_BLOCK:
        raise ConstraintError(api, "target", f"the target holds one block of {U_BLOCK} results", capacity16(t))
    X, B, y = gemv(m, api, q, u, v, pX, pY, pB, pA, relu)
    for k, xv in enumerate(xs):
        if X_PER_VECTOR * k < vp:
            leave(xv, X[X_PER_VECTOR * k:X_PER_VECTOR * (k + 1)])
    leave(bvec, B[up - U_BLOCK:])
    leave(t, y[up - U_BLOCK:])


def FPBLmAvX_uB(m, row, t, q, u, v, xvec, bvec, pX, pY, pB, pA):
    api = row.name
    _check(api, q, u, v, V_MAX, U_MAX)
    up, vp = padded(u, v)
    check_allocated(api, "target", t)
    _need(api, "X vector", xvec, vp)
    _need(api, "B vector", bvec, up)
    if capacity16(t) < up:
        raise ConstraintError(api, "target", f"the target holds the {up} results (u rounded up to 8)",
                              capacity16(t))
    X, B, y = gemv(m, api, q, u, v, pX, pY, pB, pA, 0)
    leave(xvec, X)
    leave(bvec, B)
    leave(t, y)
