"""NKI: more nki-library kernels (tests/nki/public/test_nkilib_more.py) end to end on trn2, against numpy
doing the same math (issue 15: "wall time of each public kernel vs numpy"). Rows in BENCHMARKS.md,
section nki_library_more."""
import math
import os
import sys
import warnings

import ml_dtypes
import numpy as np

from harness import Case
import npusim.nki as nki
from npusim.core.errors import UninitializedReadWarning

_PUBLIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "nki", "public")
sys.path.insert(0, _PUBLIC)
from nkilib_loader import load  # noqa: E402

BF16 = ml_dtypes.bfloat16


def _rms(v, g, eps=1e-6):
    v = v.astype(np.float32)
    return v / np.sqrt((v * v).mean(-1, keepdims=True) + eps) * g.astype(np.float32)


def _rmsnorm_quant():
    mod, ct = load("core.rmsnorm.rmsnorm_quant"), load("core.utils.common_types")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 256, 4096)).astype(BF16)
    g = rng.standard_normal((4096,)).astype(BF16)
    kargs = mod.RmsNormQuantKernelArgs(quantization_type=ct.QuantizationType.ROW)
    k = nki.simulate(mod.rmsnorm_quant_kernel, target="trn2")

    def ref():
        n = _rms(x, g)
        s = np.abs(n).max(-1, keepdims=True) / 240
        return (n / s).astype(ml_dtypes.float8_e4m3), s
    return Case("nki-library rmsnorm_quant [1, 256, 4096] bf16 -> fp8 row quant", lambda: k(x, g, kargs),
                numpy=ref, repeats=3)


def _rmsnorm_tkg():
    mod = load("core.subkernels.rmsnorm_tkg")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 8, 8192)).astype(np.float16)
    g = rng.standard_normal((1, 8192)).astype(np.float16)
    out = np.zeros((128, 32, 64), np.float16)
    k = nki.simulate(nki.jit(mod.rmsnorm_tkg)[2], target="trn2")
    return Case("nki-library rmsnorm_tkg [4, 8, 8192] fp16, LNC2 (out= argument)", lambda: k(x, g, out),
                numpy=lambda: _rms(x, g).reshape(32, 128, 64).transpose(1, 0, 2).astype(np.float16), repeats=3)


def _layernorm_tkg():
    mod = load("core.subkernels.layernorm_tkg")
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 8, 8192)).astype(np.float16)
    g, b = rng.standard_normal((1, 8192)).astype(np.float16), rng.standard_normal((1, 8192)).astype(np.float16)
    out = np.zeros((128, 32, 64), np.float16)
    k = nki.simulate(nki.jit(mod.layernorm_tkg), target="trn2")

    def ref():
        v = x.astype(np.float32)
        r = (v - v.mean(-1, keepdims=True)) / np.sqrt(v.var(-1, keepdims=True) + 1e-6) * g + b
        return r.reshape(32, 128, 64).transpose(1, 0, 2).astype(np.float16)
    return Case("nki-library layernorm_tkg [4, 8, 8192] fp16 with beta", lambda: k(x, g, out, b), numpy=ref,
                repeats=3)


def _cross_entropy():
    mod = load("experimental.loss.cross_entropy")
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((128, 32768)).astype(BF16)
    tg = rng.integers(0, 32768, size=(128,), dtype=np.int32)
    k = nki.simulate(mod.cross_entropy_forward[2], target="trn2")

    def ref():
        v = logits.astype(np.float32)
        m = v.max(1)
        lse = m + np.log(np.exp(v - m[:, None]).sum(1))
        return lse - v[np.arange(128), tg], lse
    return Case("nki-library cross_entropy_forward 128 x 32768 bf16, LNC2 (chunked online LSE)",
                lambda: k(logits, tg, positions_per_batch=64, chunk_size=16384), numpy=ref, repeats=3)


def _find_nonzero():
    mod = load("core.subkernels.find_nonzero_indices")
    rng = np.random.default_rng(4)
    x = (rng.random((4096, 64)) < 0.06).astype(np.int32)
    k = nki.simulate(mod.find_nonzero_indices[2], target="trn2")

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UninitializedReadWarning)
            return k(x, chunk_size=4096)

    def ref():
        out = np.full((64, 4096), -1, np.int32)
        for c in range(64):
            nz = np.flatnonzero(x[:, c])
            out[c, :nz.size] = nz
        return out, (x != 0).sum(0)
    return Case("nki-library find_nonzero_indices T=4096 C=64 int32, LNC2 (nonzero_with_count)", run,
                numpy=ref, repeats=3)


def _conv1d():
    mod = load("experimental.conv.conv1d")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 128, 512)).astype(np.float32)
    w = rng.standard_normal((5, 128, 256)).astype(np.float32)
    k = nki.simulate(mod.conv1d, target="trn2")

    def ref():
        xp = np.pad(x, ((0, 0), (0, 0), (2, 2)))
        return sum(np.einsum("bcl,co->bol", xp[:, :, i:i + 512], w[i]) for i in range(5))
    return Case("nki-library conv1d B=2 C_in=128 C_out=256 L=512 K=5 fp32 (SbufManager address= placement)",
                lambda: k(x, w, None, padding=(2, 2)), numpy=ref, repeats=3)


def _gen_mask():
    mod = load("core.attention.gen_mask_tkg")
    pos = np.array([[700, 701, 702, 703, 1500, 1501, 1502, 1503]], np.float32)
    k = nki.simulate(nki.jit(mod.gen_mask_tkg_hbm), target="trn2")

    def ref():
        m = np.arange(2048)[None, :] < pos[0, ::4][:, None]
        return np.broadcast_to(m.reshape(2, 1, 1, 128, 16).transpose(4, 3, 0, 1, 2), (16, 128, 2, 8, 4))
    return Case("nki-library gen_mask_tkg_hbm bs=2 heads=8 s_active=4 s_prior=2048", lambda: k(pos, 2, 8, 4, 2048),
                numpy=ref, repeats=3)


def _attention_cte():
    mod = load("core.attention.attention_cte")
    rng = np.random.default_rng(6)
    q, kk, v = (rng.standard_normal((1, 1024, 128)).astype(BF16) for _ in range(3))
    kt = np.ascontiguousarray(kk.transpose(0, 2, 1))
    k = nki.simulate(mod.attention_cte, target="trn2")

    def ref():
        s = q[0].astype(np.float32) @ kk[0].astype(np.float32).T / math.sqrt(128)
        s = np.where(np.tril(np.ones((1024, 1024), bool)), s, -np.inf)
        p = np.exp(s - s.max(1, keepdims=True))
        return (p / p.sum(1, keepdims=True)) @ v[0].astype(np.float32)
    return Case("nki-library attention_cte causal S=1024 d=128 bf16 (flash attention, PSUM address=)",
                lambda: k(q, kt, v, scale=1 / math.sqrt(128)), numpy=ref, repeats=3)


def _output_projection():
    mod = load("core.output_projection.output_projection_tkg")
    rng = np.random.default_rng(7)
    att = rng.standard_normal((128, 4, 8, 1)).astype(BF16)
    w = (rng.standard_normal((1024, 4096)) * 0.03).astype(BF16)
    k = nki.simulate(mod.output_projection_tkg[2], target="trn2")
    return Case("nki-library output_projection_tkg D=128 B=4 N=8 S=1 H=4096 bf16, LNC2", lambda: k(att, w),
                numpy=lambda: att.astype(np.float32).transpose(1, 3, 2, 0).reshape(4, 1024) @ w.astype(np.float32),
                repeats=3)


def _qkv():
    mod, ct = load("core.qkv.qkv_tkg"), load("core.utils.common_types")
    rng = np.random.default_rng(8)
    x = rng.standard_normal((4, 1, 4096)).astype(BF16)
    w = (rng.standard_normal((4096, 3072)) * 0.03).astype(BF16)
    g = rng.standard_normal((1, 4096)).astype(BF16)
    k = nki.simulate(nki.jit(mod.qkv_tkg)[2], target="trn2")
    return Case("nki-library qkv_tkg B=4 S=1 H=4096 I=3072 bf16 RMSNorm, LNC2",
                lambda: k(x, w, norm_w=g, norm_type=ct.NormType.RMS_NORM),
                numpy=lambda: _rms(x, g) @ w.astype(np.float32), repeats=3)




def _mxfp():
    """nki-samples' MXFP matmul tutorial (tests/nki/public/kernels/mx_kernels.py), on trn3."""
    sys.path.insert(0, _PUBLIC)
    import conftest
    mk = conftest.load_kernels("mx_kernels.py")
    import npusim.nki.language as nl
    rng = np.random.default_rng(9)
    st = (rng.choice([1.0, 1.5], (512, 128)) * rng.choice([-1.0, 1.0], (512, 128))).astype(BF16)
    mv = (rng.choice([1.0, 1.5], (512, 512)) * rng.choice([-1.0, 1.0], (512, 512))).astype(BF16)
    k = nki.simulate(mk.kernel_copy_strided_quantize_matmul_mx)
    return Case("nki-samples mxfp kernel_copy_strided_quantize_matmul_mx K=512 M=128 N=512 fp8 e5m2, trn3",
                lambda: k(st, mv, nl.float8_e5m2_x4, True),
                numpy=lambda: st.astype(np.float32).T @ mv.astype(np.float32), repeats=3)



def cases():
    return [f() for f in (_rmsnorm_quant, _rmsnorm_tkg, _layernorm_tkg, _cross_entropy, _find_nonzero, _conv1d,
                          _gen_mask, _attention_cte, _output_projection, _qkv, _mxfp, _attention_tkg,
                          _moe_tkg, _attention_bwd, _output_projection_cte, _qkv_cte, _attention_block,
                          _sdk_mamba)]


def _attention_tkg():
    tmod, utils = load("core.attention.attention_tkg"), load("core.attention.attention_tkg_utils")
    alloc, logging_ = load("core.utils.allocator"), load("core.utils.logging")
    import npusim.nki.isa as nisa
    import npusim.nki.language as nl
    b, h, sa, sp, d = 4, 8, 1, 4096, 128
    cfg = utils.AttnTKGConfig(bs=b, q_head=h, s_active=sa, curr_sprior=sp, full_sprior=sp, d_head=d, qk_in_sb=True)

    def kernel(q, k_active, v_active, k_prior, v_prior, mask):
        sbm = alloc.SbufManager(0, nl.tile_size.total_available_sbuf_size - 16 * 1024, logging_.get_logger("tkg"))
        sbm.open_scope()
        out = nl.ndarray((b, h, d, sa), dtype=q.dtype, buffer=nl.shared_hbm)
        q_sb = sbm.alloc_stack(q.shape, dtype=q.dtype, buffer=nl.sbuf)
        k_sb = sbm.alloc_stack(k_active.shape, dtype=k_active.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=q_sb, src=q)
        nisa.dma_copy(dst=k_sb, src=k_active)
        res, _ = tmod.attention_tkg(q_sb, k_sb, v_active, k_prior, v_prior, mask, out, cfg, sbm)
        sbm.close_scope()
        return res
    rng = np.random.default_rng(10)
    q = rng.standard_normal((d, b * h * sa)).astype(BF16)
    ka = rng.standard_normal((d, b * sa)).astype(BF16)
    va = rng.standard_normal((b, 1, sa, d)).astype(BF16)
    kp = rng.standard_normal((b, 1, d, sp)).astype(BF16)
    vp = rng.standard_normal((b, 1, sp, d)).astype(BF16)
    mask = np.ones((sp, b, h, sa), np.uint8)
    k = nki.simulate(nki.jit(kernel)[2], target="trn2")

    def ref():
        qq = q.astype(np.float32).reshape(d, b, h).transpose(1, 2, 0)
        s = np.einsum("bhd,bds->bhs", qq, kp[:, 0].astype(np.float32))
        p = np.exp(s - s.max(-1, keepdims=True))
        return np.einsum("bhs,bsd->bhd", p / p.sum(-1, keepdims=True), vp[:, 0].astype(np.float32))
    return Case("nki-library attention_tkg B=4 H=8 s_active=1 s_prior=4096 d=128 bf16, LNC2",
                lambda: k(q, ka, va, kp, vp, mask), numpy=ref, repeats=3)


def _moe_tkg():
    mod, ct = load("core.moe.moe_tkg.moe_tkg"), load("core.utils.common_types")
    rng = np.random.default_rng(11)
    t, h, i, e, kk = 8, 1024, 512, 8, 2
    x = rng.standard_normal((t, h)).astype(BF16)
    gu = (rng.standard_normal((e, h, 2, i)) / math.sqrt(h)).astype(BF16)
    dw = (rng.standard_normal((e, i, h)) / math.sqrt(i)).astype(BF16)
    logits = rng.standard_normal((t, e))
    aff = (np.exp(logits) / np.exp(logits).sum(1, keepdims=True)).astype(np.float32)
    idx = np.argsort(-logits, 1)[:, :kk].astype(np.int32)
    k = nki.simulate(nki.jit(mod.moe_tkg)[2], target="trn2")

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UninitializedReadWarning)
            return k(x, gu, dw, aff, idx, False, expert_affinities_scaling_mode=ct.ExpertAffinityScaleMode.POST_SCALE)

    def ref():
        xf, out = x.astype(np.float32), np.zeros((t, h), np.float32)
        guf, dwf = gu.astype(np.float32), dw.astype(np.float32)
        for tt in range(t):
            for ee in idx[tt]:
                g, u = xf[tt] @ guf[ee, :, 0], xf[tt] @ guf[ee, :, 1]
                out[tt] += aff[tt, ee] * ((g / (1 + np.exp(-g)) * u) @ dwf[ee])
        return out
    return Case("nki-library moe_tkg selective T=8 H=1024 I=512 E=8 top-2 bf16, LNC2 (local_gather)", run,
                numpy=ref, repeats=3)


def _attention_bwd():
    from npusim.nki.isa_matmul import PsumAccumulateWarning
    mod = load("core.attention.attention_bwd")
    rng = np.random.default_rng(12)
    b, h, d, s = 1, 2, 128, 512
    q, k, v, o, dy = (rng.standard_normal((b, h, d, s)).astype(BF16) for _ in range(5))
    lse = rng.standard_normal((b, h, 128, s // 128)).astype(np.float32) + 6
    kern = nki.simulate(mod.attention_bwd, target="trn2")

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PsumAccumulateWarning)
            return kern(q, k, v, o, dy, lse, use_causal_mask=True, mixed_precision=True, softmax_scale=1.0)

    def ref():
        qf, kf, vf, of, df = (a[0].astype(np.float32) for a in (q, k, v, o, dy))
        sc = np.einsum("hdi,hdj->hij", qf, kf)
        p = np.exp(np.where(np.triu(np.ones((s, s), bool), 1), -np.inf, sc) - lse[0].transpose(0, 2, 1).reshape(h, s, 1))
        ds = p * (np.einsum("hdi,hdj->hij", df, vf) - (df * of).sum(1)[..., None])
        return np.einsum("hij,hdj->hdi", ds, kf), np.einsum("hij,hdi->hdj", ds, qf), np.einsum("hij,hdi->hdj", p, df)
    return Case("nki-library attention_bwd causal B=1 H=2 d=128 S=512 bf16 (dQ, dK, dV)", run, numpy=ref, repeats=3)


def _output_projection_cte():
    mod = load("core.output_projection.output_projection_cte.output_projection_cte")
    rng = np.random.default_rng(13)
    att = rng.standard_normal((1, 4, 128, 1024)).astype(BF16)
    w = (rng.standard_normal((512, 2048)) * 0.05).astype(BF16)
    k = nki.simulate(mod.output_projection_cte[2], target="trn2")
    return Case("nki-library output_projection_cte B=1 N=4 D=128 S=1024 H=2048 bf16, LNC2", lambda: k(att, w),
                numpy=lambda: att[0].astype(np.float32).transpose(2, 0, 1).reshape(1024, 512) @ w.astype(np.float32),
                repeats=3)


def _qkv_cte():
    mod, ct = load("core.qkv.qkv_cte"), load("core.utils.common_types")
    rng = np.random.default_rng(14)
    x = rng.standard_normal((1, 1024, 2048)).astype(BF16)
    w = (rng.standard_normal((2048, 1536)) * 0.03).astype(BF16)
    g = rng.standard_normal((1, 2048)).astype(BF16)
    k = nki.simulate(nki.jit(mod.qkv_cte)[2], target="trn2")
    return Case("nki-library qkv_cte B=1 S=1024 H=2048 I=1536 bf16 RMSNorm, LNC2",
                lambda: k(x, w, fused_norm_type=ct.NormType.RMS_NORM, gamma_norm_weights=g),
                numpy=lambda: _rms(x, g) @ w.astype(np.float32), repeats=3)


def _attention_block():
    mod, ct = load("experimental.transformer.attention_block_tkg"), load("core.utils.common_types")
    rng = np.random.default_rng(15)
    b, s, h, d, qh, ctx = 2, 1, 2048, 128, 8, 1024
    x = rng.standard_normal((b, s, h)).astype(BF16)
    g = rng.standard_normal((1, h)).astype(BF16)
    w_qkv = (rng.standard_normal((h, d * (qh + 2))) / math.sqrt(h)).astype(BF16)
    kc, vc = (rng.standard_normal((b, ctx, d)).astype(BF16) for _ in range(2))
    mask = np.ones((ctx, b, qh, s), np.uint8)
    w_out = (rng.standard_normal((qh * d, h)) / math.sqrt(qh * d)).astype(BF16)
    none = ct.QuantizationType.NONE
    k = nki.simulate(mod.attention_block_tkg[2], target="trn2")

    def run():
        return k(x, None, True, 1e-6, g, w_qkv, None, none, None, None, False, 0.0, None, None, None, None, True,
                 False, 0.0, None, None, False, None, kc, vc, mask, None, False, None, w_out, None, none, None, None,
                 False, False)

    def ref():
        xf = x.astype(np.float32).reshape(b * s, h)
        qkv = (_rms(xf, g)) @ w_qkv.astype(np.float32)
        q = qkv[:, :qh * d].reshape(b, qh, d)
        sc = np.einsum("bqd,bkd->bqk", q, kc.astype(np.float32)) / math.sqrt(d)
        p = np.exp(sc - sc.max(-1, keepdims=True))
        att = np.einsum("bqk,bkd->bqd", p / p.sum(-1, keepdims=True), vc.astype(np.float32))
        return att.reshape(b, qh * d) @ w_out.astype(np.float32)
    return Case("nki-library attention_block_tkg B=2 H=2048 d=128 q_heads=8 ctx=1024 bf16, LNC2", run, numpy=ref,
                repeats=3)


def _sdk_mamba():
    """aws-neuron-sdk nki/examples fused Mamba v1 (current API), as tests/nki/public/test_public_sdk_current.py."""
    import conftest
    k = conftest.load_kernels("sdk_mamba_nki_kernels.py")
    rng = np.random.default_rng(16)
    b, ch, seq, st = 1, 256, 512, 16
    delta = (rng.random((b, ch, seq)) * 0.1).astype(np.float32)
    u = rng.standard_normal((b, ch, seq)).astype(np.float32)
    A = -rng.random((ch, st)).astype(np.float32)
    B, C = (rng.standard_normal((b, st, seq)).astype(np.float32) for _ in range(2))

    def ref():
        out = np.zeros((b, ch, seq), np.float32)
        for s in range(st):
            dA = np.exp(delta[0] * A[:, s:s + 1])
            dBu = delta[0] * u[0] * B[0, s][None, :]
            h = np.zeros(ch, np.float32)
            for t in range(seq):
                h = dA[:, t] * h + dBu[:, t]
                out[0, :, t] += h * C[0, s, t]
        return out
    return Case("aws-neuron-sdk fused Mamba mamba_v1 [1, 512, 256, 16] fp32 (current API example), trn2",
                lambda: k.mamba_v1(delta, u, A, B, C), numpy=ref, repeats=3)
