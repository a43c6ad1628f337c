"""Flash attention forward and backward (aws-neuron/nki-samples reference `flash_fwd`, `flash_attn_bwd`, legacy API) unchanged on
trn1/trn2/trn3, launched as the published test does (`simulate_kernel(baremetal(flash_fwd)[bs, heads],
...)`), against a float64 numpy attention with the published checks: fp32 inputs uniform in [-1, 1),
masked scores -9984.0, allclose(atol=1e-2) for the output and, in training, the log-sum-exp. Shapes are
the published cases' patterns at 512-1024 (published 4096-8192)."""
import numpy as np
import pytest


def _golden(q, k, v, causal, sliding_window):
    """q (b, h, d, sq), k (b, kvh, d, sk), v (b, kvh, sk, d) -> out (b, h, sq, d), lse (b, h, 128, sq/128)."""
    b, h, d, sq = q.shape
    rep = h // k.shape[1]
    k = np.repeat(k, rep, axis=1).astype(np.float64)
    v = np.repeat(v, rep, axis=1).astype(np.float64)
    s = np.einsum("bhdq,bhdk->bhqk", q.astype(np.float64) / np.sqrt(d), k)
    if causal:
        qi = np.arange(sq)[:, None]
        ki = np.arange(k.shape[-1])[None, :]
        masked = (ki > qi) | (ki < qi - sliding_window + 1) if sliding_window > 0 else ki > qi
        s[:, :, masked] = -9984.0
    m = s.max(axis=-1, keepdims=True)
    e = np.exp(s - m)
    z = e.sum(axis=-1, keepdims=True)
    out = np.einsum("bhqk,bhkd->bhqd", e / z, v)
    lse = (m + np.log(z))[..., 0].reshape(b, h, sq // 128, 128).transpose(0, 1, 3, 2)
    return out, lse


@pytest.mark.parametrize("nheads, kv_heads, seqlen_q, seqlen_k, sliding_window, training", [
    (2, 1, 512, 512, -1, True),         # GQA, training (published: 6 heads over 3, 4096)
    (1, 1, 512, 1024, -1, False),       # non-square (published 4096 x 8192)
    (1, 1, 512, 512, 128, False),       # causal sliding window (published 4096, window 1024)
])
def test_flash_fwd(target, kernels, nheads, kv_heads, seqlen_q, seqlen_k, sliding_window, training):
    k = kernels("flash_attention.py")
    nki = k.nki
    rng = np.random.default_rng(7)
    d, bs = 128, 1
    q = ((rng.random((bs, nheads, d, seqlen_q)) - 0.5) * 2).astype(np.float32)
    kk = ((rng.random((bs, kv_heads, d, seqlen_k)) - 0.5) * 2).astype(np.float32)
    v = ((rng.random((bs, kv_heads, seqlen_k, d)) - 0.5) * 2).astype(np.float32)
    config = k.FlashConfig(seq_tile_size=512, training=training, should_transpose_v=False)
    results = nki.simulate_kernel(nki.baremetal(k.flash_fwd)[bs, kv_heads], q, kk, v, None,
                                  use_causal_mask=True, sliding_window=sliding_window, mixed_precision=True,
                                  config=config)
    out, lse = _golden(q, kk, v, True, sliding_window)
    if training:
        o_proj, out_lse = results
        np.testing.assert_allclose(out_lse, lse, atol=1e-2, rtol=0)
    else:
        o_proj = results
    np.testing.assert_allclose(o_proj, out, atol=1e-2, rtol=0)


def _bwd_golden(q, k, v, dy, sliding_window, sinks):
    """float64 gradients of causal attention (with sink logits): dq, dk, dv (summed over a kv group), dsinks;
    also the forward output o (b, h, d, s) and lse (b, h, 128, s/128) the kernel takes as inputs."""
    b, h, d, s = q.shape
    rep = h // k.shape[1]
    K, V = np.repeat(k, rep, 1).astype(np.float64), np.repeat(v, rep, 1).astype(np.float64)
    Q, DY = q.astype(np.float64), dy.astype(np.float64)
    scale = 1 / np.sqrt(d)
    S = np.einsum("bhdq,bhdk->bhqk", Q * scale, K)
    qi, ki = np.arange(s)[:, None], np.arange(s)[None, :]
    masked = (ki > qi) | (ki < qi - sliding_window + 1) if sliding_window > 0 else ki > qi
    S[:, :, masked] = -9984.0
    if sinks is not None:
        S = np.concatenate([S, np.broadcast_to(sinks.reshape(b, h, 1, 1).astype(np.float64), (b, h, s, 1))], -1)
    m = S.max(-1, keepdims=True)
    e = np.exp(S - m)
    z = e.sum(-1, keepdims=True)
    P = e / z
    dP = np.einsum("bhdq,bhdk->bhqk", DY, V)
    if sinks is not None:
        dP = np.concatenate([dP, np.zeros((b, h, s, 1))], -1)
    dS = (dP - (dP * P).sum(-1, keepdims=True)) * P
    dsinks = dS[..., -1].sum(-1) if sinks is not None else None
    dS, P = dS[..., :s], P[..., :s]
    kvh = k.shape[1]
    dv = np.einsum("bhdq,bhqk->bhdk", DY, P).reshape(b, kvh, rep, d, s).sum(2)
    dq = np.einsum("bhdk,bhqk->bhdq", K, dS) * scale
    dk = np.einsum("bhdq,bhqk->bhdk", Q * scale, dS).reshape(b, kvh, rep, d, s).sum(2)
    o = np.einsum("bhqk,bhdk->bhdq", P, V)
    lse = (m + np.log(z))[..., 0].reshape(b, h, s // 128, 128).transpose(0, 1, 3, 2)
    return o, lse, dq, dk, dv, dsinks


@pytest.mark.parametrize("nheads, nheads_kv, sliding_window, with_sinks", [
    (2, 1, -1, False),      # GQA (published: 4 over 1, 8 over 2)
    (2, 2, 128, False),     # sliding window 128 (published)
    (2, 1, -1, True),       # attention sinks (published), dsinks checked too
])
def test_flash_attn_bwd(target, kernels, nheads, nheads_kv, sliding_window, with_sinks):
    # published (test/unit/test_flash_attn_bwd.py): fp32 inputs uniform in [-1, 1), sinks randn, launched
    # as simulate_kernel(baremetal(flash_attn_bwd)[bs, nheads_kv], ...), allclose(atol=1e-2) for dq, dk,
    # dv (and dsinks); seqlen 256 here (published 4096, 8192)
    k = kernels("flash_attention.py")
    nki = k.nki
    rng = np.random.default_rng(8)
    bs, d, s = 1, 128, 256

    def r(*shape):
        return ((rng.random(shape) - 0.5) * 2).astype(np.float32)
    q, kk, v, dy = r(bs, nheads, d, s), r(bs, nheads_kv, d, s), r(bs, nheads_kv, d, s), r(bs, nheads, d, s)
    sinks = rng.standard_normal((bs, nheads)).astype(np.float32) if with_sinks else None
    o, lse, dq, dk, dv, dsinks = _bwd_golden(q, kk, v, dy, sliding_window, sinks)
    outs = nki.simulate_kernel(nki.baremetal(k.flash_attn_bwd)[bs, nheads_kv], q, kk, v, o.astype(np.float32), dy,
                               lse.astype(np.float32), None, use_causal_mask=True, mixed_precision=True,
                               sliding_window=sliding_window, sinks=sinks)
    assert len(outs) == (4 if with_sinks else 3)
    for got, want in zip(outs, (dq, dk, dv, dsinks)):
        np.testing.assert_allclose(got, want, atol=1e-2, rtol=0)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_fused_self_attention_sd_small_head(target, kernels, dtype):
    # published (test/unit/test_SD_attention_small_head.py): q (bs, d, S), k and v (bs, S, d) uniform in
    # [0, 1), cast to the kernel dtype, softmax scale 0.125, allclose(atol=1e-2) against fp32 math; S 256
    # here (published 4096)
    import ml_dtypes
    k = kernels("flash_attention.py")
    nki = k.nki
    rng = np.random.default_rng(13)
    bs, d, s = 1, 128, 256
    q = rng.random((bs, d, s)).astype(np.float32)
    kk = rng.random((bs, s, d)).astype(np.float32)
    v = rng.random((bs, s, d)).astype(np.float32)
    dt = np.float32 if dtype == "float32" else ml_dtypes.bfloat16
    out = nki.simulate_kernel(nki.baremetal(k.fused_self_attn_for_SD_small_head_size)[bs],
                              q.astype(dt), kk.astype(dt), v.astype(dt))
    sc = np.einsum("bds,btd->bst", q.astype(np.float64) * 0.125, kk.astype(np.float64))
    p = np.exp(sc - sc.max(-1, keepdims=True))
    want = (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)
    np.testing.assert_allclose(out.astype(np.float64), want, atol=1e-2, rtol=0)
