"""Flash attention forward (aws-neuron/nki-samples reference `flash_fwd`, legacy API) unchanged on
trn1/trn2/trn3, launched as the published test does (`simulate_kernel(baremetal(flash_fwd)[bs, heads],
...)`), against a float64 numpy attention with the published checks: fp32 inputs uniform in [-1, 1),
masked scores -9984.0, allclose(atol=1e-2) for the output and, in training, the log-sum-exp. Shapes are
the published cases' patterns at 1024-2048 (published 4096-8192)."""
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
    (2, 1, 1024, 1024, -1, True),       # GQA, training (published: 6 heads over 3, 4096)
    (1, 1, 1024, 2048, -1, False),      # non-square (published 4096 x 8192)
    (1, 1, 1024, 1024, 256, False),     # causal sliding window (published 4096, window 1024)
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
