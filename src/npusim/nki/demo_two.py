"""Part two's showcase for ``npusim demo`` (``demo.run()`` appends these checks): a tiled fp32 matmul accumulating over K in PSUM, with its TensorE cycles against the formula
by hand, and a causal single-head attention (affine_select mask, softmax, TensorE transposes)."""
from __future__ import annotations

import math

import numpy as np

from ..demo import Check
from . import isa as nisa
from . import language as nl
from .kernel import jit, last_run, simulate


@jit
def matmul_kT(lhsT, rhs):
    K, M = lhsT.shape
    N = rhs.shape[1]
    out = nl.ndarray((M, N), nl.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        acc = nl.ndarray((128, N), nl.float32, buffer=nl.psum)
        for k in nl.affine_range(K // 128):
            a = nl.load(lhsT[k * 128:(k + 1) * 128, m * 128:(m + 1) * 128])
            b = nl.load(rhs[k * 128:(k + 1) * 128, :])
            nisa.nc_matmul(dst=acc, stationary=a, moving=b)
        r = nl.ndarray((128, N), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=r, src=acc)
        nl.store(out[m * 128:(m + 1) * 128, :], r)
    return out


@jit
def causal_attention(qT, kT, v):
    d, s = qT.shape
    out = nl.ndarray((s, d), nl.float32, buffer=nl.shared_hbm)
    k_sb, v_sb = nl.load(kT), nl.load(v)                       # s = 128: one tile each
    q_sb = nl.load(qT)
    ps = nl.ndarray((s, s), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=ps, stationary=q_sb, moving=k_sb)
    sc = nl.ndarray((s, s), nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=sc, data=ps, op0=nl.multiply, operand0=1.0 / math.sqrt(d))
    nisa.affine_select(dst=sc, pattern=[[-1, s]], channel_multiplier=1, on_true_tile=sc, on_false_value=-9984.0,
                       cmp_op=nl.greater_equal)
    p = nl.softmax(sc, axis=1)
    pt_ps = nl.ndarray((s, s), nl.float32, buffer=nl.psum)
    nisa.nc_transpose(dst=pt_ps, data=p)
    pt = nl.ndarray((s, s), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=pt, src=pt_ps)
    o_ps = nl.ndarray((s, d), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=o_ps, stationary=pt, moving=v_sb)
    o = nl.ndarray((s, d), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=o, src=o_ps)
    nl.store(out, o)
    return out


def run() -> list[Check]:
    checks = []
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 256)).astype(np.float32)
    b = rng.standard_normal((256, 512)).astype(np.float32)
    c = simulate(matmul_kT, target="trn2")(np.ascontiguousarray(a.T), b)
    ok = np.allclose(c, a.astype(np.float64) @ b, atol=1e-4, rtol=1e-2)
    cyc = sum(e.cycles for e in last_run().trace.events if e.name == "nisa.nc_matmul")
    hand = 2 * 2 * max(512, 64) * 4
    checks.append(Check("nki", "nc_matmul 256x256x512 fp32, PSUM accumulation over K", ok,
                        "matches numpy (atol 1e-4, rtol 1e-2)" if ok else "differs from numpy"))
    checks.append(Check("nki", "TensorE cycles vs max(N, 64) x 4 by hand", cyc == hand,
                        f"{cyc:.0f} simulated, {hand} by hand"))
    s, d = 128, 64
    q, k, v = (rng.standard_normal((s, d)).astype(np.float32) for _ in range(3))
    y = simulate(causal_attention, target="trn2")(np.ascontiguousarray(q.T), np.ascontiguousarray(k.T), v)
    sc = np.where(np.tril(np.ones((s, s), bool)), q.astype(np.float64) @ k.T / math.sqrt(d), -9984.0)
    pr = np.exp(sc - sc.max(1, keepdims=True))
    want = pr / pr.sum(1, keepdims=True) @ v
    ok = np.allclose(y, want, atol=1e-2)
    checks.append(Check("nki", "causal attention S=128 d=64 (affine_select, softmax, nc_transpose)", ok,
                        f"max abs err {np.max(np.abs(y - want)):.2g} (atol 1e-2)"))
    return checks
