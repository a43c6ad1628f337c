"""NKI: nki-library kernels kept verbatim in tests/nki/public/nkilib, end to end on trn2, against numpy
doing the same math (issue 15: "wall time of each public kernel vs numpy")."""
import math
import os
import sys

import ml_dtypes
import numpy as np

from harness import Case
import npusim.nki as nki

_PUBLIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "nki", "public")
sys.path.insert(0, _PUBLIC)
from nkilib_loader import load  # noqa: E402


def _dynamic_add():
    mod = load("experimental.dynamic_shapes.dynamic_elementwise_add")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1024, 2048)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((1024, 2048)).astype(ml_dtypes.bfloat16)
    n = np.array([[8]], np.int32)
    k = nki.simulate(mod.dynamic_elementwise_add, target="trn2")
    return (Case("nki-library dynamic_elementwise_add 1024x2048 bf16 (.ap scalar_offset, dynamic_range)",
                 lambda: k(a, b, n), numpy=lambda: (a.astype(np.float32) + b).astype(ml_dtypes.bfloat16),
                 repeats=3))


def _cascaded_max():
    mod = load("core.max.cascaded_max")
    x = np.random.default_rng(1).standard_normal((2, 8, 8192)).astype(np.float32)
    k = nki.simulate(mod.cascaded_max[2], target="trn2")
    return Case("nki-library cascaded_max [2, 8, 8192] fp32, LNC2 (max8 / find_index8 / .ap)",
                lambda: k(x), numpy=lambda: (x.max(-1), x.argmax(-1)), repeats=3)


def _rope():
    mod = load("core.embeddings.rope")
    rng = np.random.default_rng(2)
    d, b, h, s = 128, 2, 4, 256
    x = rng.standard_normal((d, b, h, s)).astype(ml_dtypes.bfloat16)
    ang = rng.uniform(0, 2 * math.pi, (d // 2, b, s))
    cos, sin = np.cos(ang).astype(ml_dtypes.bfloat16), np.sin(ang).astype(ml_dtypes.bfloat16)
    k = nki.simulate(mod.RoPE, target="trn2")

    def ref():
        c, sn = cos[:, :, None, :], sin[:, :, None, :]
        return np.concatenate([x[:64] * c - x[64:] * sn, x[:64] * sn + x[64:] * c])
    return Case("nki-library RoPE [128, 2, 4, 256] bf16 (TensorView over .ap)", lambda: k(x, cos, sin),
                numpy=ref, repeats=3)


def _rope_hf():
    mod = load("core.embeddings.rope_hf")
    rng = np.random.default_rng(3)
    q = rng.standard_normal((1, 8, 512, 128)).astype(np.float32)
    kk = rng.standard_normal((1, 2, 512, 128)).astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi, (1, 512, 64))
    ang = np.concatenate([ang, ang], -1)
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    qo, ko = np.zeros_like(q), np.zeros_like(kk)
    k = nki.simulate(mod.rope_hf[2], target="trn2")

    def ref():
        rot = lambda t: np.concatenate([-t[..., 64:], t[..., :64]], -1)  # noqa: E731
        return q * cos[:, None] + rot(q) * sin[:, None], kk * cos[:, None] + rot(kk) * sin[:, None]
    return Case("nki-library rope_hf q [1, 8, 512, 128] k [1, 2, 512, 128] fp32, LNC2",
                lambda: k(q, kk, qo, ko, cos, sin), numpy=ref, repeats=3)


def _cumsum():
    mod = load("core.cumsum.cumsum")
    x = np.random.default_rng(4).standard_normal((512, 4096)).astype(np.float32)
    k = nki.simulate(mod.cumsum, target="trn2")
    return Case("nki-library cumsum 512x4096 fp32 (carried tensor_tensor_scan)", lambda: k(x),
                numpy=lambda: np.cumsum(x, -1), repeats=3)


def _router():
    mod = load("core.router_topk.router_topk")
    types_ = load("core.utils.common_types")
    rng = np.random.default_rng(5)
    t, h, e, kk = 256, 1024, 128, 4
    x = rng.standard_normal((h, t)).astype(np.float32)
    w = (rng.standard_normal((h, e)) / 32).astype(np.float32)
    b = rng.standard_normal((1, e)).astype(np.float32)
    outs = [np.zeros((t, e), np.float32), np.zeros((t, e), np.float32), np.zeros((t, kk), np.uint32)]

    def kern(x, w, b, lg, af, ex):
        return mod.router_topk(x, w, b, lg, af, ex, types_.RouterActFnType.SOFTMAX, kk, 0, 0)
    k = nki.simulate(nki.jit(kern)[2], target="trn2")

    def ref():
        lg = x.T @ w + b
        p = np.exp(lg - lg.max(1, keepdims=True))
        return lg, p / p.sum(1, keepdims=True), np.argsort(-lg, 1)[:, :kk]
    return Case("nki-library router_topk T=256 H=1024 E=128 k=4 softmax, LNC2", lambda: k(x, w, b, *outs),
                numpy=ref, repeats=3)


def _indexed_flatten():
    mod = load("core.subkernels.indexed_flatten")
    x = np.arange(8 * 2048, dtype=np.int32).reshape(8, 2048)
    offs = (np.arange(8, dtype=np.int32) * 100)
    k = nki.simulate(mod.indexed_flatten[2], target="trn2")

    def ref():
        out = np.full((8192 // 16, 16), -1, np.int32)
        blocks = x.reshape(8, -1, 16)
        for e in range(8):
            n = min(blocks.shape[1], out.shape[0] - offs[e])
            if n > 0:
                out[offs[e]:offs[e] + n] = blocks[e, :n]
        return out
    return Case("nki-library indexed_flatten E=8 T=2048 f_len=16 -> 8192, LNC2 (sendrecv, .ap scatter)",
                lambda: k(x, 16, 8192, offs), numpy=ref, repeats=3)


def cases():
    return [f() for f in (_dynamic_add, _cascaded_max, _rope, _rope_hf, _cumsum, _router, _indexed_flatten)]
