"""``npusim demo`` for NKI: the issue's sub_one kernel, a per-row affine transform with (P, 1)
operands, a saturating int8 quantisation, and the capacity check the official simulator lacks."""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from ..demo import Check
from . import isa as nisa
from . import language as nl
from .kernel import jit, last_run, simulate


@jit
def sub_one(a):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    r = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=r, data=t, op0=nl.subtract, operand0=1.0)
    nisa.dma_copy(dst=out, src=r)
    return out


@jit
def affine_rows(x, scale, bias):
    out = nl.ndarray(x.shape, nl.bfloat16, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        rows = nl.ds(i * 128, 128)
        for j in nl.affine_range(x.shape[1] // 512):
            cols = nl.ds(j * 512, 512)
            t = nl.load(x[rows, cols])
            s, b = nl.load(scale[rows, :]), nl.load(bias[rows, :])
            y = nl.ndarray((128, 512), nl.bfloat16, buffer=nl.sbuf)
            nisa.tensor_scalar(dst=y, data=t, op0=nl.multiply, operand0=s, op1=nl.add, operand1=b)
            nl.store(out[rows, cols], y)
    return out


@jit
def quantize(x):
    out = nl.ndarray(x.shape, nl.int8, buffer=nl.shared_hbm)
    q = nl.ndarray(x.shape, nl.int8, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=q, data=nl.load(x), op0=nl.multiply, operand0=1.0)
    nl.store(out, q)
    return out


@jit
def too_big(x):
    tiles = [nl.ndarray((128, 16384), nl.float32, name=f"tile{i}") for i in range(4)]   # 4 x 64 KiB
    return tiles


def run() -> list[Check]:
    checks = []
    rng = np.random.default_rng(0)
    a = rng.standard_normal((128, 512)).astype(np.float32)
    y = simulate(sub_one, target="trn2")(a)
    ev = last_run().trace.events
    checks.append(Check("nki", "sub_one (issue example): a - 1 on (128, 512) fp32", np.array_equal(y, a - 1),
                        f"{len(ev)} instructions, {max(e.end_ns for e in ev) / 1e3:.2f} us simulated on trn2"))

    x = rng.standard_normal((256, 2048)).astype(np.float32)
    s, b = rng.standard_normal((256, 1)).astype(np.float32), rng.standard_normal((256, 1)).astype(np.float32)
    y = simulate(affine_rows, target="trn2")(x, s, b)
    want = ((x * s).astype(np.float32) + b).astype(y.dtype)
    run_ = last_run()
    busy = {e.engine for e in run_.trace.events}
    checks.append(Check("nki", "per-row affine x*scale+bias, (P,1) operands, bf16 out", np.array_equal(y, want),
                        f"{len(run_.trace.events)} instructions on {len(busy)} engines/queues, "
                        f"{run_.trace.total_ns / 1e3:.1f} us simulated"))

    q_in = np.array([[0.5, 1.5, 2.5, -2.5, 300.0, -300.0, np.nan, 126.5]] * 128, np.float32)
    q = simulate(quantize, target="trn2")(q_in)
    checks.append(Check("nki", "fp32 -> int8 cast: RNE, saturating, NaN -> 0",
                        q[0].tolist() == [0, 2, 2, -2, 127, -128, 0, 126], f"row 0 -> {q[0].tolist()}"))

    try:
        simulate(too_big, target="trn1")(np.zeros(1, np.float32))
        ok, detail = False, "no error"
    except ConstraintError as e:
        ok, detail = "180224" in str(e), str(e.rule)[:90] + "..."
    checks.append(Check("nki", "SBUF capacity: 4 x 64 KiB/partition tiles do not fit trn1", ok, detail))
    from . import demo_two           # part two: TensorE matmul (cycles vs the formula), causal attention
    checks += demo_two.run()
    return checks
