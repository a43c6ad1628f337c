"""The fused Mamba tutorial (v1, v2, v3) and the attention forward tutorial (v1, v2) of
aws-neuron/nki-samples (legacy neuronxcc.nki API), unchanged on trn1/trn2/trn3, against numpy."""
import numpy as np
import pytest


def _mamba_ref(delta, u, A, B, C):
    """The selective-scan recurrence in float64: h_t = exp(delta_t A) h_{t-1} + delta_t u_t B_t, y = sum C h."""
    d, uu, a, b, c = (x.astype(np.float64) for x in (delta, u, A, B, C))
    batch, channels, seq = d.shape
    out = np.zeros((batch, channels, seq))
    for i in range(batch):
        for s in range(a.shape[1]):
            dA = np.exp(d[i] * a[:, s:s + 1])                # (channels, seq)
            dBu = d[i] * uu[i] * b[i, s][None, :]
            h = np.zeros(channels)
            hs = np.empty((channels, seq))
            for t in range(seq):
                h = dA[:, t] * h + dBu[:, t]
                hs[:, t] = h
            out[i] += hs * c[i, s][None, :]
    return out


@pytest.mark.parametrize("version", ["mamba_v1", "mamba_v2", "mamba_v3"])
def test_mamba(target, kernels, version):
    k = kernels("mamba_nki_kernels.py")
    rng = np.random.default_rng(5)
    batch, channels, seq, state = 1, 256, 512, 4      # v3 tiles seq_len by 512
    delta = rng.random((batch, channels, seq), dtype=np.float32) * 0.1
    u = rng.standard_normal((batch, channels, seq)).astype(np.float32)
    A = -rng.random((channels, state), dtype=np.float32)
    B = rng.standard_normal((batch, state, seq)).astype(np.float32)
    C = rng.standard_normal((batch, state, seq)).astype(np.float32)
    out = getattr(k, version)(delta, u, A, B, C)
    # no published tolerance (the tutorial compares v2/v3 with v1): the tutorials' common one
    np.testing.assert_allclose(out, _mamba_ref(delta, u, A, B, C), atol=1e-4, rtol=1e-2)


def _attention_ref(q, k, v):
    """q, k, v: (d_head, seqlen); out (seqlen_q, d_head) = softmax(q.T k) v.T."""
    q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
    s = q64.T @ k64
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return p @ v64.T


@pytest.mark.parametrize("version", ["attn_fwd_v1", "attn_fwd_v2", "attn_fwd_v3", "attn_fwd_v4", "attn_fwd_v5",
                                     "attn_fwd_v6", "attn_fwd_v7", "attn_fwd_v8"])
def test_attention(target, kernels, version):
    # the tutorial's test_attention.py: fp32 inputs uniform in [-1, 1), allclose(atol=1e-2); seqlen 128 for
    # v1/v2 (no tiling), the smallest the tiled versions accept (512) instead of its 4096
    k = kernels("attention_kernels.py")
    rng = np.random.default_rng(6)
    seqlen = 128 if version in ("attn_fwd_v1", "attn_fwd_v2") else 512
    q, kk, v = ((rng.random((128, seqlen)) - 0.5).astype(np.float32) * 2 for _ in range(3))
    out = getattr(k, version)(q, kk, v)
    np.testing.assert_allclose(out.astype(np.float64), _attention_ref(q, kk, v), atol=1e-2, rtol=0)


def test_attention_v8a_needs_psum_block_rotation(kernels, target):
    # v8a/v11 allocate PSUM block tiles larger than PSUM (the compiler rotates their blocks through
    # banks); npusim allocates every block, so the capacity rule fires, naming PSUM
    k = kernels("attention_kernels.py")
    q = np.zeros((128, 512), np.float32)
    with pytest.raises(Exception, match="PSUM .* holds at most 16384 bytes"):
        k.attn_fwd_v8a(q, q, q)
