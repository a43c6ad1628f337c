"""Part two's ``npusim demo`` checks: a fixed-point GEMV with bias and ReLU (FPBLmAvX_uB_L) and, in VPPL
text, get_array from an image followed by a 5x5 convolution (DNN_convolutionLayerNP1), each against
float64 numpy within its documented bound (1/2 LSB)."""
from __future__ import annotations

import numpy as np

TEXT = """External pX : pointer,
External pW : pointer,
External pB : pointer,
External pY : pointer;
~
alloc_vector(vT, __I16V, 32)
alloc_vector(vIn, __I16V, 64)
use_image(pImg, A)
vT = vT.get_array(pX, pImg, 0, 0, 32, 32, 12);
vT = vT.DNN_convolutionLayerNP1(5, 1, 32, 32, 28, 28, vIn, pX, pW, pB, pY, 0, 12);
"""


def run():
    from ..demo import Check
    from . import Machine, alloc_vector, dm_alloc, dm_put, dm_read, run_with, using
    from .fixed_point import from_fixed, to_fixed
    from .ops_blas import pad_fpbl

    checks = []
    rng = np.random.default_rng(7)
    q, u, v = 12, 64, 300
    A = to_fixed(rng.normal(0, 1 / np.sqrt(v), (u, v)), q)
    x = to_fixed(rng.uniform(-1, 1, v), q)
    b = to_fixed(rng.uniform(-0.2, 0.2, u), q)
    Ap, bp, xp = pad_fpbl(A, b, x)
    with using(Machine()) as m:
        pX, pY, pB, pA = dm_put(xp), dm_alloc(2 * u), dm_put(bp), dm_put(Ap)
        xs = [alloc_vector(f"vX{k}", "__I16V", 256) for k in range(4)]
        alloc_vector("vT", "__I16V", 8).FPBLmAvX_uB_L(q, u, v, *xs, alloc_vector("vB", "__I16V", 8),
                                                      pX, pY, pB, pA, 1)
        y = dm_read(pY, np.int16, u)
    ref = np.maximum(from_fixed(A, q) @ from_fixed(x, q) + from_fixed(b, q), 0)
    err = np.abs(from_fixed(y, q) - ref).max() * 2.0 ** q
    checks.append(Check("vppl", f"FPBLmAvX_uB_L: F16Q12 GEMV {u}x{v} + bias + ReLU", bool(err <= 0.5),
                        f"max error {err:.3f} LSB (bound 0.5); {m.cycles:,.0f} cycles (estimate)"))

    img = (128 + 100 * np.sin(np.add.outer(np.arange(32) / 5, np.arange(32) / 7))).astype(np.uint8)
    w = to_fixed(rng.normal(0, 0.2, (5, 5)), 12)
    bias = to_fixed([0.1], 12)
    m = Machine()
    with using(m):
        ext = {"pX": dm_alloc(32 * 32 * 2), "pW": dm_put(w), "pB": dm_put(bias), "pY": dm_alloc(28 * 28 * 2)}
    run_with(TEXT, machine=m, images={"A": img}, externals=ext, filename="demo_conv.vppl")
    with using(m):
        out = dm_read(ext["pY"], np.int16, 28 * 28, (28, 28))
    xr = img / 256.0
    wr = from_fixed(w, 12)
    ref = sum(wr[dy, dx] * xr[dy:dy + 28, dx:dx + 28] for dy in range(5) for dx in range(5)) + bias[0] / 4096
    err = np.abs(out / 4096.0 - ref).max() * 4096
    checks.append(Check("vppl", "VPPL text: get_array 32x32 -> F16Q12, 5x5 convolution (NP1)", bool(err <= 0.5),
                        f"max error {err:.3f} LSB (bound 0.5); {m.cycles:,.0f} cycles (estimate)"))
    return checks
