"""NKI part two: whole kernels end to end (the tiled fp32 matmul 512x512x512, causal attention at
S=1024, d=128) against numpy doing the same math, and the simulated TensorE cycles of the matmul
against the published formula applied by hand."""
import math
import os
import runpy

import numpy as np

from harness import Case
import npusim.nki as nki

_EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "nki")


def _example(name):
    return runpy.run_path(os.path.join(_EXAMPLES, name + ".py"), run_name="bench")


def matmul_cycles(m=512, k=512, n=512, target="trn2"):
    """(simulated TensorE cycles of the tiled matmul's nc_matmul events, the formula by hand):
    (M/128)(N/512)(K/128) matmuls x max(N_moving=512, 64) cycles x 4 for fp32 (reference nki.md §4.1)."""
    mod = _example("matmul_tiled")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((k, m)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    nki.simulate(mod["matmul_tiled"], target=target)(a, b)
    events = [e for e in nki.last_run().trace.events if e.name == "nisa.nc_matmul"]
    simulated = sum(e.cycles for e in events)
    by_hand = (m // 128) * (n // 512) * (k // 128) * max(512, 64) * 4
    return simulated, by_hand


def _matmul_case():
    mod = _example("matmul_tiled")
    rng = np.random.default_rng(1)
    a = rng.standard_normal((512, 512)).astype(np.float32)
    b = rng.standard_normal((512, 512)).astype(np.float32)
    aT = np.ascontiguousarray(a.T)
    kernel = nki.simulate(mod["matmul_tiled"], target="trn2")
    return lambda: kernel(aT, b), lambda: a @ b


def _attention_case(s=1024, d=128):
    mod = _example("attention")
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((s, d)).astype(np.float32) for _ in range(3))
    qT, kT = np.ascontiguousarray(q.T), np.ascontiguousarray(k.T)
    kernel = nki.simulate(mod["attention"], target="trn2")
    mask = np.tril(np.ones((s, s), bool))

    def numpy_attention():
        sc = np.where(mask, (q @ k.T) / np.float32(math.sqrt(d)), np.float32(-9984.0))
        p = np.exp(sc - sc.max(1, keepdims=True))
        return (p / p.sum(1, keepdims=True)) @ v

    return lambda: kernel(qT, kT, v), numpy_attention


def cases():
    mm, mm_np = _matmul_case()
    att, att_np = _attention_case()
    sim, hand = matmul_cycles()
    return [
        Case("tiled matmul 512x512x512 fp32 (16 nc_matmul, PSUM accumulation over K), end to end", mm,
             numpy=mm_np, target="< 0.2 s (Triton's numpy interpreter ~1.7 s)", repeats=5),
        Case("causal attention S=1024 d=128 fp32 (QK^T, affine_select, softmax, PV), end to end", att,
             numpy=att_np, target="< 2 s", repeats=3),
        Case(f"matmul simulated TensorE cycles {sim:.0f} vs formula by hand {hand} "
             f"({100 * (sim - hand) / hand:+.1f}%)", lambda: None, target="within 10%", repeats=1),
    ]


if __name__ == "__main__":
    print(matmul_cycles())
