"""More nki-library kernels (aws-neuron/nki-library @ d2ad3a5, kept verbatim under nkilib/ with their
helper modules), run unchanged against float64 numpy references written here, at the tolerances of the
library's own tests (test/integration/nkilib/...):

- core/rmsnorm/rmsnorm_quant.py: RMSNorm then fp8 row / static quantization (the dequant scale packed as
  4 fp8 bytes at the end of each row);
- core/subkernels/rmsnorm_tkg.py, layernorm_tkg.py (+ norm_tkg_utils.py): token-generation norms writing
  an ``out=`` argument in the [128, B*S, H/128] layout (LNC1 and the LNC2 interleaved halves), with
  ``dge_mode=3`` passed as a plain int;
- experimental/loss/cross_entropy.py: chunked online log-sum-exp forward and its backward;
- core/subkernels/find_nonzero_indices.py: ``nisa.nonzero_with_count`` on the GpSimd cores' partitions,
  ``nc_stream_shuffle``, ``.ap(scalar_offset=)`` scatters, LNC2;
- experimental/conv/conv1d.py: manual SBUF placement (``nl.ndarray(address=)`` through SbufManager);
- core/attention/gen_mask_tkg.py (gen_mask_tkg_hbm), attention_cte.py, attention_tkg.py, attention_bwd.py;
- core/output_projection (tkg and cte), core/qkv (qkv_tkg with ``nisa.dma_compute``, qkv_cte);
- core/moe/moe_tkg (``nisa.local_gather``), core/subkernels/rmsnorm_mx_quantize_tkg.py (trn3 MX);
- experimental/benchmark/find_nonzero_indices_with_count.py, experimental/transformer/attention_block_tkg.py.
"""
import math
import os
import sys
import warnings

import ml_dtypes
import numpy as np
import pytest

import npusim.nki as nki
from npusim.core.errors import UninitializedReadWarning

sys.path.insert(0, os.path.dirname(__file__))
from nkilib_loader import load  # noqa: E402

FP8_RANGE = 240.0       # nl.float8_e4m3's largest finite value (the library reference's FP8_RANGE)


def max_allclose(got, want, rtol, atol=0.0):
    """The library's ``maxAllClose`` (mode "max", what its test framework validates every output with):
    |got - want| <= atol + rtol * max|want| everywhere."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    err = np.abs(got - want).max()
    bound = atol + rtol * np.abs(want[np.isfinite(want)]).max()
    assert err <= bound, f"max |err| {err} > {bound}"


# ---- rmsnorm_quant ----

def _rmsnorm_quant_ref(x, gamma, norm: bool, row: bool, lower_bound=0.0, scale=None, eps=1e-6):
    """The library test's math (rms + eps outside the root), in float64."""
    v = x.astype(np.float64)
    if norm:
        rms = np.sqrt(np.mean(v * v, axis=-1, keepdims=True))
        v = v / (rms + eps) * gamma.astype(np.float64).reshape(-1)
    if row:
        amax = np.abs(v).max(axis=-1, keepdims=True)
        if lower_bound > 0:
            amax = np.minimum(amax, lower_bound)
            v = np.clip(v, -lower_bound, lower_bound)
        deq = amax / FP8_RANGE
        return v / deq, deq
    return np.clip(v / float(scale), -FP8_RANGE, FP8_RANGE), None


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("shape,norm,row,lower_bound,lnc", [
    ((1, 160, 2048), True, True, 0.0, 1),
    ((2, 64, 1024), True, True, 0.5, 1),
    ((1, 130, 512), False, True, 0.0, 1),
    ((1, 160, 2048), True, False, 0.0, 1),
    ((1, 256, 1024), True, True, 0.0, 2),
])
def test_rmsnorm_quant(target, shape, norm, row, lower_bound, lnc):
    mod = load("core.rmsnorm.rmsnorm_quant")
    ct = load("core.utils.common_types")
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
    h = shape[-1]
    gamma = rng.standard_normal((1, h) if lnc > 1 else (h,)).astype(ml_dtypes.bfloat16)
    kargs = mod.RmsNormQuantKernelArgs(
        lower_bound=lower_bound, norm_type=ct.NormType.RMS_NORM if norm else ct.NormType.NO_NORM,
        quantization_type=ct.QuantizationType.ROW if row else ct.QuantizationType.STATIC, eps=1e-6)
    scale = None if row else np.full((128, 1), 0.45, np.float32)
    kernel = mod.rmsnorm_quant_kernel[lnc] if lnc > 1 else mod.rmsnorm_quant_kernel
    out = nki.simulate(kernel, target=target)(x, gamma, kargs, scale)
    want, deq = _rmsnorm_quant_ref(x, gamma, norm, row, lower_bound, None if row else 0.45)
    assert out.dtype == ml_dtypes.float8_e4m3
    if row:
        assert out.shape == shape[:-1] + (h + 4,)
        got_scale = np.ascontiguousarray(out[..., h:]).view(np.float32)     # 4 fp8 bytes = one fp32
        max_allclose(got_scale, deq, rtol=0.007)            # the library test's deq_scale_rtol
        out = out[..., :h]
    max_allclose(out.astype(np.float64), want, rtol=0.072)  # norm_values_rtol


def test_rmsnorm_quant_rejects_a_negative_lower_bound():
    mod = load("core.rmsnorm.rmsnorm_quant")
    with pytest.raises(AssertionError, match="Lower bound"):
        mod.RmsNormQuantKernelArgs(lower_bound=-1.0)


# ---- rmsnorm_tkg / layernorm_tkg (subkernels called as kernels, writing their out= argument) ----

def _tkg_layout(r, lnc, hidden_dim_tp=False):
    """[B*S, H] rows -> the kernels' [128, B*S, H/128] output layout (rmsnorm_torch.py's layouts)."""
    bxs, h = r.shape
    if hidden_dim_tp:
        return r.reshape(bxs, h // 128, 128).transpose(2, 0, 1)
    if lnc == 1:
        return r.reshape(bxs, 128, h // 128).transpose(1, 0, 2)
    halves = [r[:, :h // 2], r[:, h // 2:]]      # LNC2: each core's half of H, interleaved per partition
    return np.concatenate([t.reshape(bxs, 128, -1).transpose(1, 0, 2) for t in halves], axis=2)


def _rms_rows(x, gamma, hidden_actual=None, eps=1e-6):
    v = x.astype(np.float64).reshape(-1, x.shape[-1])
    n = hidden_actual or v.shape[1]
    return v / np.sqrt((v * v).sum(axis=1, keepdims=True) / n + eps) * gamma.astype(np.float64)


def _ln_rows(x, gamma, beta, eps=1e-6):
    v = x.astype(np.float64).reshape(-1, x.shape[-1])
    m = v.mean(axis=1, keepdims=True)
    r = (v - m) / np.sqrt(v.var(axis=1, keepdims=True) + eps) * gamma.astype(np.float64)
    return r + beta.astype(np.float64) if beta is not None else r


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("lnc,b,s,h,hidden_actual,hidden_dim_tp,shard_on_h", [
    (1, 1, 8, 2048, None, False, False), (1, 1, 4, 2048, 1920, False, False), (2, 2, 5, 3072, None, False, False),
    (1, 1, 1, 4096, 3072, True, False), (2, 1, 1, 4096, None, False, True), (2, 2, 8, 2048, None, False, True),
])
def test_rmsnorm_tkg(target, lnc, b, s, h, hidden_actual, hidden_dim_tp, shard_on_h):
    mod = load("core.subkernels.rmsnorm_tkg")
    rng = np.random.default_rng(h + s)
    x = rng.standard_normal((b, s, h)).astype(np.float16)
    gamma = rng.standard_normal((1, h)).astype(np.float16)
    out = np.zeros((128, b * s, h // 128), np.float16)
    kernel = nki.jit(mod.rmsnorm_tkg)
    got = nki.simulate(kernel[lnc] if lnc > 1 else kernel, target=target)(
        x, gamma, out, hidden_actual=hidden_actual, hidden_dim_tp=hidden_dim_tp, shard_on_h=shard_on_h)
    want = _tkg_layout(_rms_rows(x, gamma, hidden_actual), 1 if hidden_dim_tp else lnc, hidden_dim_tp)
    max_allclose(got, want, rtol=2e-2, atol=1e-5)      # test_rmsnorm_tkg.py's (the framework's maxAllClose)
    np.testing.assert_array_equal(out, got)          # written in place: the returned tensor is the argument


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("lnc,b,s,h,with_beta,shard_on_h", [
    (1, 1, 8, 2048, True, False), (1, 2, 5, 3072, False, False), (2, 1, 8, 2048, True, False),
    (2, 1, 1, 4096, True, True),
])
def test_layernorm_tkg(target, lnc, b, s, h, with_beta, shard_on_h):
    mod = load("core.subkernels.layernorm_tkg")
    rng = np.random.default_rng(h + s + 1)
    x = rng.standard_normal((b, s, h)).astype(np.float16)
    gamma = rng.standard_normal((1, h)).astype(np.float16)
    beta = rng.standard_normal((1, h)).astype(np.float16) if with_beta else None
    out = np.zeros((128, b * s, h // 128), np.float16)
    kernel = nki.jit(mod.layernorm_tkg)
    got = nki.simulate(kernel[lnc] if lnc > 1 else kernel, target=target)(x, gamma, out, beta, shard_on_h=shard_on_h)
    want = _tkg_layout(_ln_rows(x, gamma, beta), lnc)
    max_allclose(got, want, rtol=2e-2, atol=1e-5)      # test_layernorm_tkg.py's


# ---- cross_entropy (forward: loss and log-sum-exp; backward: d loss / d logits) ----

def _lse(logits):
    v = logits.astype(np.float64)
    m = v.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(v - m).sum(axis=1, keepdims=True)))[:, 0]


_CE_DTYPES = {"float32": (np.float32, 1e-5), "bfloat16": (ml_dtypes.bfloat16, 1e-2)}   # the tests' accuracies


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("n,v,dtype,pb,cs,lnc", [
    (64, 4096, "float32", 32, 1024, 1), (128, 3000, "bfloat16", 64, 1024, 2), (5, 2048, "float32", 4, 2048, 1),
])
def test_cross_entropy_forward(target, n, v, dtype, pb, cs, lnc):
    mod = load("experimental.loss.cross_entropy")
    npdt, tol = _CE_DTYPES[dtype]
    rng = np.random.default_rng(n + v)
    logits = rng.standard_normal((n, v)).astype(npdt)
    targets = rng.integers(0, v, size=(n,), dtype=np.int32)
    kernel = mod.cross_entropy_forward[lnc] if lnc > 1 else mod.cross_entropy_forward
    loss, lse = nki.simulate(kernel, target=target)(logits, targets, positions_per_batch=pb, chunk_size=cs,
                                                    dtype=npdt)
    want_lse = _lse(logits)
    want_loss = want_lse - logits.astype(np.float64)[np.arange(n), targets]
    max_allclose(lse, want_lse, rtol=tol, atol=tol)
    max_allclose(loss, want_loss, rtol=tol, atol=tol)


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("n,v,dtype,pb,cs,reduction,inplace,lnc", [
    (64, 4096, "float32", 32, 1024, "mean", True, 1), (64, 2048, "float32", 16, 2048, "sum", False, 2),
    (128, 3000, "bfloat16", 64, 1024, "sum", False, 1),     # sum: values up to 1 (a mean grad is under atol)
])
def test_cross_entropy_backward(target, n, v, dtype, pb, cs, reduction, inplace, lnc):
    mod = load("experimental.loss.cross_entropy")
    npdt, tol = _CE_DTYPES[dtype]
    rng = np.random.default_rng(n + v + 1)
    logits = rng.standard_normal((n, v)).astype(npdt)
    targets = rng.integers(0, v, size=(n,), dtype=np.int32)
    lse = _lse(logits).astype(npdt)
    want = np.exp(logits.astype(np.float64) - lse.astype(np.float64)[:, None])
    want[np.arange(n), targets] -= 1.0
    if reduction == "mean":
        want /= n
    kernel = mod.cross_entropy_backward[lnc] if lnc > 1 else mod.cross_entropy_backward
    arg = logits.copy()
    grad = nki.simulate(kernel, target=target)(arg, targets, lse, reduction=reduction, positions_per_batch=pb,
                                               chunk_size=cs, dtype=npdt, inplace=inplace)
    max_allclose(grad, want, rtol=tol, atol=tol)
    if inplace:
        np.testing.assert_array_equal(arg, grad)        # the gradient overwrote the logits argument
    else:
        np.testing.assert_array_equal(arg, logits)


# ---- find_nonzero_indices (nisa.nonzero_with_count, LNC2) ----

def _sparse(t, e, top_k, dtype, seed):
    """The library test's input: t*top_k//e ones per column at random rows (0.1 for float32)."""
    rng = np.random.default_rng(seed)
    k = t * top_k // e
    flat = rng.permutation(np.concatenate([np.ones(k * e), np.zeros((t - k) * e)]))
    x = flat.reshape(e, t).T.astype(dtype)
    if dtype == np.float32:
        x[x > 0] = 0.1
    return x


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("t,e,top_k,chunk,dtype,subset", [
    (1024, 16, 4, 1024, np.int32, None), (2048, 32, 4, 512, np.float32, None),
    (1024, 32, 4, 1024, np.float32, (8, 8)), (1024, 128, 8, 256, np.int32, (16, 20)),
])
def test_find_nonzero_indices(target, t, e, top_k, chunk, dtype, subset):
    mod = load("core.subkernels.find_nonzero_indices")
    x = _sparse(t, e, top_k, dtype, t + e)
    with warnings.catch_warnings():
        # the kernel transposes whole 128-column tiles of which it wrote only the GpSimd cores' columns,
        # and shuffles whole partitions: it reads never-written bytes and discards them
        warnings.simplefilter("ignore", UninitializedReadWarning)
        run = nki.simulate(mod.find_nonzero_indices[2], target=target)
        if subset:
            indices, counts = run(x, np.array([subset[0]], np.int32), n_cols=subset[1], chunk_size=chunk)
            x = x[:, subset[0]:subset[0] + subset[1]]
        else:
            indices, counts = run(x, chunk_size=chunk)
    want = np.full((x.shape[1], t), -1, np.int64)      # the docstring's pseudocode
    for c in range(x.shape[1]):
        rows = np.flatnonzero(x[:, c])
        want[c, :rows.size] = rows
    np.testing.assert_array_equal(indices, want)        # atol=rtol=0 in the library's test
    np.testing.assert_array_equal(counts, (x != 0).sum(axis=0))
    names = [ev.name for ev in nki.last_run().trace.events]
    assert names.count("nisa.nonzero_with_count") == 2 * (t // chunk) * math.ceil(x.shape[1] / 2 / 8)


# ---- conv1d (SbufManager places every tile by address) ----

def _conv1d_ref(x, w, bias, stride, pad, dilation, act):
    """out[b, o, l] = sum_k sum_c xpad[b, c, l*stride + k*dilation] * w[k, c, o] (+ bias, activation)."""
    v, f = x.astype(np.float64), w.astype(np.float64)
    k_size = f.shape[0]
    xp = np.pad(v, ((0, 0), (0, 0), pad))
    l_out = (v.shape[2] + pad[0] + pad[1] - dilation * (k_size - 1) - 1) // stride + 1
    out = np.zeros((v.shape[0], f.shape[2], l_out))
    for k in range(k_size):
        seg = xp[:, :, k * dilation: k * dilation + stride * (l_out - 1) + 1: stride]
        out += np.einsum("bcl,co->bol", seg, f[k])
    if bias is not None:
        out += bias.astype(np.float64)[None, :, None]
    if act == "SiLU":
        out = out / (1 + np.exp(-out))
    elif act == "GELU":
        out = 0.5 * out * (1 + np.vectorize(math.erf)(out / math.sqrt(2)))
    return out


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("b,c_in,c_out,length,k,stride,pad,dilation,bias,act,lnc,dtype", [
    (1, 16, 32, 20, 3, 1, (0, 0), 1, False, None, False, "float32"),
    (2, 64, 128, 40, 5, 2, (2, 2), 2, True, "GELU", False, "float32"),
    (1, 64, 128, 150, 5, 2, (4, 6), 2, False, "SiLU", False, "float32"),
    (1, 48, 64, 128, 100, 1, (1, 1), 1, True, None, False, "float32"),
    (1, 128, 256, 200, 5, 2, (2, 2), 1, True, "GELU", True, "float32"),
    (1, 16, 32, 20, 3, 1, (0, 0), 1, False, None, False, "bfloat16"),
])
def test_conv1d(target, b, c_in, c_out, length, k, stride, pad, dilation, bias, act, lnc, dtype):
    mod = load("experimental.conv.conv1d")
    ct = load("core.utils.common_types")
    npdt, tol = {"float32": (np.float32, 1e-5), "bfloat16": (ml_dtypes.bfloat16, 5e-2)}[dtype]   # the test's
    rng = np.random.default_rng(c_in + length + k)
    x = rng.standard_normal((b, c_in, length)).astype(npdt)
    w = rng.standard_normal((k, c_in, c_out)).astype(npdt)
    bv = rng.standard_normal((c_out,)).astype(npdt) if bias else None
    kernel = mod.conv1d[2] if lnc else mod.conv1d
    got = nki.simulate(kernel, target=target)(x, w, bv, stride=stride, padding=pad, dilation=dilation,
                                              activation_fn=getattr(ct.ActFnType, act) if act else None,
                                              lnc_shard=lnc)
    max_allclose(got, _conv1d_ref(x, w, bv, stride, pad, dilation, act), rtol=tol, atol=tol)


# ---- gen_mask_tkg_hbm (attention mask of token generation; flat KV cache, strided MM1 layout) ----

def _gen_mask_ref(pos, bs, q_head, s_active, s_prior, start=None, active=None):
    """mask[b, h, a, k] = k < cache_len[b] (or the per-query sliding window [start, end), wrapping when
    start > end), the active mask at the tail; laid out as the kernel's [s_prior, bs, q_head, s_active]
    rows: row n*128 + p holds position p*n_tiles + n (strided MM1)."""
    k = np.arange(s_prior)
    if start is None:
        cache_len = pos[0, ::s_active][:bs].astype(np.float64)
        m = np.broadcast_to(k < cache_len[:, None, None, None], (bs, q_head, s_active, s_prior)).astype(np.float64)
    else:
        lo = start[0, :bs * s_active].reshape(bs, s_active, 1).astype(np.float64)
        hi = pos[0, :bs * s_active].reshape(bs, s_active, 1).astype(np.float64)
        win = np.where(lo <= hi, (k >= lo) & (k < hi), (k >= lo) | (k < hi))
        m = np.broadcast_to(win[:, None], (bs, q_head, s_active, s_prior)).astype(np.float64)
    m = m.copy()
    if active is not None:
        m[..., s_prior - s_active:] = active[:, :bs].transpose(1, 2, 3, 0)
    n = s_prior // 128
    tiles = m.reshape(bs, q_head, s_active, 128, n).transpose(4, 3, 0, 1, 2)     # [n, P, bs, q_head, s_active]
    return tiles.reshape(s_prior, bs, q_head, s_active)


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("bs,q_head,s_active,s_prior,swa,active,lnc", [
    (2, 4, 1, 1024, False, False, 1), (4, 8, 4, 2048, False, True, 1), (2, 4, 2, 1024, True, False, 1),
    (4, 8, 1, 4096, False, False, 2), (2, 2, 4, 2048, True, True, 2),
])
def test_gen_mask_tkg_hbm(target, bs, q_head, s_active, s_prior, swa, active, lnc):
    mod = load("core.attention.gen_mask_tkg")
    rng = np.random.default_rng(bs * s_prior + s_active)
    cache_len = rng.integers(1, s_prior - s_active, size=bs)
    pos = (np.repeat(cache_len, s_active) + np.tile(np.arange(s_active), bs))[None, :].astype(np.float32)
    start = (pos - rng.integers(1, 300, size=pos.shape)).astype(np.float32) if swa else None
    if swa:
        start[0, 0] = pos[0, 0] + 5             # start after end: the window wraps around
    act = (np.broadcast_to(np.tril(np.ones((s_active, s_active), np.float32))[:, None, None, :],
                           (s_active, bs, q_head, s_active)).copy() if active else None)
    kernel = nki.jit(mod.gen_mask_tkg_hbm)
    got = nki.simulate(kernel[lnc] if lnc > 1 else kernel, target=target)(pos, bs, q_head, s_active, s_prior,
                                                                          start, 0, act)
    np.testing.assert_array_equal(got, _gen_mask_ref(pos, bs, q_head, s_active, s_prior, start, act))


# ---- attention_cte (flash attention for context encoding; PSUM tiles placed on banks by address=) ----

def _attention_ref(q, k, v, scale, causal, window=0, sink=None, k_prior=None, v_prior=None, prior_len=0):
    """softmax(q k^T * scale + mask) v in float64; GQA by repeating K/V heads; a prefix (k_prior, v_prior,
    first prior_len positions) goes before the active K/V; a sink adds one logit to the softmax only."""
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    if k_prior is not None:
        k = np.concatenate([k_prior.astype(np.float64)[:, :prior_len], k], axis=1)
        v = np.concatenate([v_prior.astype(np.float64)[:, :prior_len], v], axis=1)
    rep = q.shape[0] // k.shape[0]
    k, v = np.repeat(k, rep, axis=0), np.repeat(v, rep, axis=0)
    s = np.einsum("bqd,bkd->bqk", q, k) * scale
    diff = (np.arange(k.shape[1]) - prior_len)[None, :] - np.arange(q.shape[1])[:, None]
    masked = np.zeros(diff.shape, bool)
    if causal:
        masked |= diff > 0
    if window:
        masked |= diff <= -window
    s = np.where(masked, -np.inf, s)
    if sink is not None:
        s = np.concatenate([s, np.broadcast_to(sink.astype(np.float64)[:, :, None], s.shape[:2] + (1,))], axis=2)
    p = np.exp(s - s.max(axis=2, keepdims=True))
    p /= p.sum(axis=2, keepdims=True)
    return p[..., :k.shape[1]] @ v


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("bs,bs_kv,sq,skv,d,causal,window,tp_k,sink,prior,lnc", [
    (1, 1, 512, 512, 128, True, 0, False, False, 0, 1),
    (2, 1, 256, 1024, 64, False, 0, True, False, 0, 1),        # GQA, K given as (b, s, d)
    (1, 1, 1024, 1024, 128, True, 256, False, False, 0, 1),    # sliding window
    (2, 2, 512, 512, 128, True, 0, False, True, 0, 1),         # sink logits
    (1, 1, 384, 384, 64, True, 0, False, False, 300, 1),       # prefix caching, 300 of 512 prior used
    (1, 1, 2048, 2048, 128, True, 0, False, False, 0, 2),      # LNC2
])
def test_attention_cte(target, bs, bs_kv, sq, skv, d, causal, window, tp_k, sink, prior, lnc):
    mod = load("core.attention.attention_cte")
    rng = np.random.default_rng(sq + skv + d + bs)
    bf16 = ml_dtypes.bfloat16
    q = rng.standard_normal((bs, sq, d)).astype(bf16)
    k = rng.standard_normal((bs_kv, skv, d)).astype(bf16)
    v = rng.standard_normal((bs_kv, skv, d)).astype(bf16)
    scale = 1.0 if (window or prior) else 1.0 / math.sqrt(d)     # the kernel requires 1.0 with SWA / prefix
    kw = dict(scale=scale, causal_mask=causal, tp_q=True, tp_k=tp_k)
    k_arg = k if tp_k else np.ascontiguousarray(k.transpose(0, 2, 1))      # tp_k=False: K is (b, d, s)
    sink_v = rng.standard_normal((bs, 1)).astype(np.float32) if sink else None
    k_prior = v_prior = None
    if prior:
        k_prior = rng.standard_normal((bs_kv, 512, d)).astype(bf16)
        v_prior = rng.standard_normal((bs_kv, 512, d)).astype(bf16)
        kw.update(k_prior=np.ascontiguousarray(k_prior.transpose(0, 2, 1)), v_prior=v_prior,
                  prior_used_len=np.array([prior], np.int32))
    if window:
        kw["sliding_window"] = window
    if sink:
        kw["sink"] = sink_v
    kernel = mod.attention_cte[lnc] if lnc > 1 else mod.attention_cte
    got = nki.simulate(kernel, target=target)(q, k_arg, v, **kw)
    want = _attention_ref(q, k, v, scale, causal, window, sink_v, k_prior, v_prior, prior)
    max_allclose(got, want, rtol=2e-2, atol=1e-5)        # test_attention_cte.py's accuracies


# ---- output_projection_tkg (out = attention @ weight + bias; fp8 static / row quantization) ----

def _out_proj_ref(att, w, bias, transpose_out, lnc, quant=None, w_scale=None, in_scale=None):
    """output_projection_tkg_torch.py's math in float64 (the input is not rounded to fp8 there either,
    hence the library's 5e-2 tolerance for the quantized modes)."""
    d, b, n, s = att.shape
    h = w.shape[1]
    a = att.astype(np.float64).transpose(1, 3, 2, 0).reshape(b * s, n * d)
    if quant == "STATIC":
        a = np.clip(a / float(in_scale[0, 0]), -FP8_RANGE, FP8_RANGE)
    out = a @ w.astype(np.float64)
    if quant == "STATIC":
        out *= float(w_scale[0, 0]) * float(in_scale[0, 0])
    elif quant == "ROW":
        out *= w_scale[0].astype(np.float64)
    if bias is not None:
        out += bias.astype(np.float64)
    if transpose_out:           # [H_1=128, H_0=lnc, H_2, B*S]
        out = out.reshape(b * s, lnc, 128, h // (lnc * 128)).transpose(2, 1, 3, 0)
    return out


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("d,b,n,s,h,bias,transpose_out,lnc,quant", [
    (128, 2, 4, 1, 1024, True, False, 1, None), (64, 4, 2, 2, 2048, False, True, 2, None),
    (128, 1, 8, 4, 2048, True, False, 2, None), (128, 2, 3, 1, 1536, True, True, 1, None),
    (128, 2, 2, 1, 1024, False, False, 1, "STATIC"), (128, 2, 2, 1, 1024, True, False, 1, "ROW"),
])
def test_output_projection_tkg(target, d, b, n, s, h, bias, transpose_out, lnc, quant):
    mod = load("core.output_projection.output_projection_tkg")
    ct = load("core.utils.common_types")
    rng = np.random.default_rng(h + n + d)
    bf16 = ml_dtypes.bfloat16
    att = rng.standard_normal((d, b, n, s)).astype(bf16)
    w_scale = in_scale = None
    if quant is None:
        w = (rng.standard_normal((n * d, h)) * 0.05).astype(bf16)
    else:
        w = rng.uniform(-100, 100, (n * d, h)).astype(ml_dtypes.float8_e4m3)
        if quant == "STATIC":
            w_scale, in_scale = np.full((128, 1), 0.002, np.float32), np.full((128, 1), 0.05, np.float32)
        else:
            w_scale = np.repeat(rng.uniform(0.001, 0.003, (1, h)).astype(np.float32), 128, axis=0)
    bv = rng.standard_normal((1, h)).astype(bf16) if bias else None
    kernel = mod.output_projection_tkg[lnc] if lnc > 1 else mod.output_projection_tkg
    got = nki.simulate(kernel, target=target)(att, w, bv, getattr(ct.QuantizationType, quant or "NONE"), w_scale,
                                              in_scale, TRANSPOSE_OUT=transpose_out)
    want = _out_proj_ref(att, w, bv, transpose_out, lnc, quant, w_scale, in_scale)
    max_allclose(got, want, rtol=2e-2 if quant is None else 5e-2, atol=1e-5)   # test_output_proj_tkg.py's


# ---- qkv_tkg (fused residual add through nisa.dma_compute, RMSNorm / LayerNorm, QKV projection) ----

def _qkv_ref(x, w, norm, gamma=None, beta=None, prev=None, bias=None, eps=1e-6):
    v = x.astype(np.float64)
    if prev is not None:
        v = v + prev[0].astype(np.float64) + prev[1].astype(np.float64)
    if norm == "RMS_NORM":
        v = v / np.sqrt((v * v).mean(axis=-1, keepdims=True) + eps) * gamma.astype(np.float64)
    elif norm == "LAYER_NORM":
        m = v.mean(axis=-1, keepdims=True)
        v = (v - m) / np.sqrt(v.var(axis=-1, keepdims=True) + eps) * gamma.astype(np.float64) + beta.astype(np.float64)
    out = v @ w.astype(np.float64)
    return out + bias.astype(np.float64) if bias is not None else out


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("b,s,h,i,norm,fused_add,bias,lnc", [
    (1, 4, 2048, 1536, "RMS_NORM", False, False, 1), (2, 2, 4096, 1024, "NO_NORM", False, True, 1),
    (2, 1, 2048, 768, "LAYER_NORM", True, False, 1), (4, 1, 4096, 3072, "RMS_NORM", False, False, 2),
    (2, 2, 2048, 1024, "RMS_NORM", True, True, 2),
])
def test_qkv_tkg(target, b, s, h, i, norm, fused_add, bias, lnc):
    mod = load("core.qkv.qkv_tkg")
    ct = load("core.utils.common_types")
    rng = np.random.default_rng(h + i + b)
    bf16 = ml_dtypes.bfloat16
    x = rng.standard_normal((b, s, h)).astype(bf16)
    w = (rng.standard_normal((h, i)) * 0.03).astype(bf16)
    gamma, beta = rng.standard_normal((1, h)).astype(bf16), rng.standard_normal((1, h)).astype(bf16)
    kw = dict(norm_type=getattr(ct.NormType, norm))
    if norm != "NO_NORM":
        kw["norm_w"] = gamma
    if norm == "LAYER_NORM":
        kw["norm_bias"] = beta
    prev = None
    if fused_add:
        prev = (rng.standard_normal((b, s, h)).astype(bf16), rng.standard_normal((b, s, h)).astype(bf16))
        kw.update(fused_add=True, mlp_prev=prev[0], attn_prev=prev[1])
    bv = rng.standard_normal((1, i)).astype(bf16) if bias else None
    if bias:
        kw["qkv_bias"] = bv
    kernel = nki.jit(mod.qkv_tkg)
    got = nki.simulate(kernel[lnc] if lnc > 1 else kernel, target=target)(x, w, **kw)
    if fused_add:
        got, fused = got
        added = x.astype(np.float32) + prev[1].astype(np.float32) + prev[0].astype(np.float32)   # dma_compute: fp32
        np.testing.assert_array_equal(fused, added.astype(bf16))
    want = _qkv_ref(x, w, norm, gamma, beta, prev, bv)
    max_allclose(got, want.reshape(got.shape), rtol=2e-2, atol=1e-5)      # test_qkv_tkg.py's accuracies


# ---- attention_tkg (token-generation attention; a subkernel taking cfg and an SbufManager) ----

def _attention_tkg_kernel(mod, cfg):
    """Our driver, as the library's test wraps the subkernel: an SbufManager over SBUF less 16 KiB, Q and
    the active K loaded to SBUF (cfg.qk_in_sb: the kernel fuses no RoPE otherwise), the output in HBM."""
    alloc, logging_ = load("core.utils.allocator"), load("core.utils.logging")
    import npusim.nki.isa as nisa
    import npusim.nki.language as nl

    def kernel(q, k_active, v_active, k_prior, v_prior, mask, sink):
        sbm = alloc.SbufManager(0, nl.tile_size.total_available_sbuf_size - 16 * 1024, logging_.get_logger("tkg"))
        sbm.open_scope()
        out = nl.ndarray((cfg.bs, cfg.q_head, cfg.d_head, cfg.s_active), dtype=q.dtype, buffer=nl.shared_hbm)
        q_sb = sbm.alloc_stack(q.shape, dtype=q.dtype, buffer=nl.sbuf)
        k_sb = sbm.alloc_stack(k_active.shape, dtype=k_active.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=q_sb, src=q)
        nisa.dma_copy(dst=k_sb, src=k_active)
        res, _ = mod.attention_tkg(q_sb, k_sb, v_active, k_prior, v_prior, mask, out, cfg, sbm, sink=sink)
        sbm.close_scope()
        return res
    return nki.jit(kernel)


def _attention_tkg_ref(q, k_active, v_active, k_prior, v_prior, mask, sink, tp_k):
    """attention_tkg_torch.py's math in float64: the active K/V take the last s_active cache positions,
    no scaling (RoPE not fused), mask 0 = masked, an optional per-head sink logit in the softmax only."""
    b, d, h, sa = q.shape
    qq = q.astype(np.float64).transpose(0, 2, 3, 1)                       # [b, h, s_active, d]
    kp = k_prior.astype(np.float64)[:, 0]
    kp = (kp.transpose(0, 2, 1) if tp_k else kp).copy()                     # [b, d, s_prior]
    vp = v_prior.astype(np.float64)[:, 0].copy()                            # [b, s_prior, d]
    kp[:, :, -sa:] = k_active.astype(np.float64)
    vp[:, -sa:, :] = v_active.astype(np.float64)[:, 0]
    s = np.where(mask.transpose(1, 2, 3, 0) != 0, np.einsum("bhad,bds->bhas", qq, kp), -np.inf)
    if sink is not None:
        s = np.concatenate([s, np.broadcast_to(sink.astype(np.float64).reshape(1, h, 1, 1), (b, h, sa, 1))], -1)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p = (p / p.sum(axis=-1, keepdims=True))[..., :kp.shape[2]]
    return (p @ vp[:, None]).transpose(0, 1, 3, 2)                          # [b, h, d, s_active]


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("b,h,sa,sp,d,tp_k,sink,lnc", [
    (2, 4, 1, 1024, 128, False, False, 1), (2, 8, 4, 2048, 128, True, True, 1), (4, 4, 1, 2048, 64, False, False, 2),
    (1, 8, 2, 4096, 128, True, False, 2),
])
def test_attention_tkg(target, b, h, sa, sp, d, tp_k, sink, lnc):
    mod = load("core.attention.attention_tkg")
    utils = load("core.attention.attention_tkg_utils")
    cfg = utils.AttnTKGConfig(bs=b, q_head=h, s_active=sa, curr_sprior=sp, full_sprior=sp, d_head=d, tp_k_prior=tp_k,
                              qk_in_sb=True)
    rng = np.random.default_rng(sp + h + sa)
    bf16 = ml_dtypes.bfloat16
    q4 = rng.standard_normal((b, d, h, sa)).astype(bf16)
    q = np.ascontiguousarray(q4.transpose(1, 0, 2, 3)).reshape(d, b * h * sa)      # [d, B*H*s_active] in SBUF
    k3 = rng.standard_normal((b, d, sa)).astype(bf16)
    k_active = np.ascontiguousarray(k3.transpose(1, 0, 2)).reshape(d, b * sa)
    v_active = rng.standard_normal((b, 1, sa, d)).astype(bf16)
    k_prior = rng.standard_normal((b, 1, sp, d) if tp_k else (b, 1, d, sp)).astype(bf16)
    v_prior = rng.standard_normal((b, 1, sp, d)).astype(bf16)
    mask = np.zeros((sp, b, h, sa), np.uint8)                 # cache length per batch, causal active block
    for i, n in enumerate(rng.integers(sp // 2, sp - sa, size=b)):
        mask[:n, i] = 1
        for a in range(sa):
            mask[sp - sa:sp - sa + a + 1, i, :, a] = 1
    sink_v = rng.standard_normal((h, 1)).astype(np.float32) if sink else None
    kernel = _attention_tkg_kernel(mod, cfg)
    got = nki.simulate(kernel[lnc] if lnc > 1 else kernel, target=target)(q, k_active, v_active, k_prior, v_prior,
                                                                         mask, sink_v)
    want = _attention_tkg_ref(q4, k3, v_active, k_prior, v_prior, mask, sink_v, tp_k)
    max_allclose(got, want, rtol=1e-2, atol=1e-5)             # test_attention_tkg.py's (bf16 KV)


# ---- moe_tkg (MoE MLP for decode: selective top-K experts or all experts; nisa.local_gather) ----

def _moe_ref(x, gate_up, down, affinities, index, all_experts, post_scale):
    """moe_tkg_torch.py's math in float64: per expert SiLU(x Wg) * (x Wu) @ Wd, scaled by the token's
    affinity (POST_SCALE) and summed over the token's top-K experts (or all experts)."""
    xf = x.astype(np.float64)

    def mlp(v, e):
        g, u = v @ gate_up[e, :, 0].astype(np.float64), v @ gate_up[e, :, 1].astype(np.float64)
        return (g / (1 + np.exp(-g)) * u) @ down[e].astype(np.float64)
    out = np.zeros(x.shape)
    if all_experts:
        for e in range(gate_up.shape[0]):
            out += (affinities[:, e:e + 1] if post_scale else 1.0) * mlp(xf, e)
    else:
        for t in range(x.shape[0]):
            for e in index[t]:
                out[t] += (affinities[t, e] if post_scale else 1.0) * mlp(xf[t:t + 1], e)[0]
    return out


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("t,h,i,e,k,all_experts,post_scale,lnc", [
    (4, 1024, 512, 8, 2, False, True, 1), (8, 1024, 512, 4, 2, True, True, 1), (8, 1024, 512, 8, 2, False, True, 2),
    (4, 1024, 512, 8, 2, False, False, 1),
])
def test_moe_tkg(target, t, h, i, e, k, all_experts, post_scale, lnc):
    mod = load("core.moe.moe_tkg.moe_tkg")
    ct = load("core.utils.common_types")
    rng = np.random.default_rng(t + h + e)
    bf16 = ml_dtypes.bfloat16
    x = rng.standard_normal((t, h)).astype(bf16)
    gate_up = (rng.standard_normal((e, h, 2, i)) / math.sqrt(h)).astype(bf16)
    down = (rng.standard_normal((e, i, h)) / math.sqrt(i)).astype(bf16)
    logits = rng.standard_normal((t, e))
    affinities = (np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)).astype(np.float32)
    index = np.argsort(-logits, axis=1)[:, :k].astype(np.int32)
    mode = ct.ExpertAffinityScaleMode.POST_SCALE if post_scale else ct.ExpertAffinityScaleMode.NO_SCALE
    kernel = nki.jit(mod.moe_tkg)
    with warnings.catch_warnings():
        # local_gather reads the whole affinity tile; only the token rows were loaded (the rest is discarded)
        warnings.simplefilter("ignore", UninitializedReadWarning)
        got = nki.simulate(kernel[lnc] if lnc > 1 else kernel, target=target)(
            x, gate_up, down, affinities, index, all_experts,
            rank_id=np.zeros((1, 1), np.int32) if all_experts else None, expert_affinities_scaling_mode=mode)
    max_allclose(got, _moe_ref(x, gate_up, down, affinities, index, all_experts, post_scale), rtol=2e-2, atol=1e-5)


# ---- attention_bwd (flash attention backward: dQ, dK, dV from the saved log-sum-exp) ----

def _attention_fwd64(q, k, v, scale, causal, window):
    """Probabilities, output and LSE in float64 for q, k, v laid out [b, h, d, s] (GQA: K/V heads repeated)."""
    rep = q.shape[1] // k.shape[1]
    kk, vv = np.repeat(k.astype(np.float64), rep, axis=1), np.repeat(v.astype(np.float64), rep, axis=1)
    s = np.einsum("bhdi,bhdj->bhij", q.astype(np.float64), kk) * scale
    sq, sk = s.shape[2:]
    masked = np.zeros((sq, sk), bool)
    if causal:
        masked |= np.triu(np.ones((sq, sk), bool), 1)
    if window:
        masked |= np.arange(sk)[None, :] < (np.arange(sq)[:, None] - window + 1)
    s = np.where(masked, -np.inf, s)
    mx = s.max(axis=-1, keepdims=True)
    ex = np.exp(s - mx)
    z = ex.sum(axis=-1, keepdims=True)
    p = ex / z
    return p, np.einsum("bhij,bhdj->bhdi", p, vv), (mx + np.log(z))[..., 0], kk, vv, rep


def _attention_grads64(q, k, v, o, dy, scale, causal, window):
    """dS = P * (dP - rowsum(dO * O)); dQ = dS K * scale, dK = dS^T Q * scale, dV = P^T dO (summed per KV head)."""
    p, _, _, kk, vv, rep = _attention_fwd64(q, k, v, scale, causal, window)
    dyf, of = dy.astype(np.float64), o.astype(np.float64)
    dv = np.einsum("bhij,bhdi->bhdj", p, dyf)
    ds = p * (np.einsum("bhdi,bhdj->bhij", dyf, vv) - (dyf * of).sum(axis=2)[..., None])
    dq = np.einsum("bhij,bhdj->bhdi", ds, kk) * scale
    dk = np.einsum("bhij,bhdi->bhdj", ds, q.astype(np.float64)) * scale
    b, h, d, sk = dk.shape
    return dq, dk.reshape(b, h // rep, rep, d, sk).sum(2), dv.reshape(b, h // rep, rep, d, sk).sum(2)


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("b,h,hk,d,s,causal,window,lnc", [
    (1, 2, 2, 64, 256, False, None, 1), (1, 4, 2, 128, 256, True, None, 1), (1, 2, 2, 64, 512, True, 128, 2),
])
def test_attention_bwd(target, b, h, hk, d, s, causal, window, lnc):
    from npusim.nki.isa_matmul import PsumAccumulateWarning
    mod = load("core.attention.attention_bwd")
    rng = np.random.default_rng(s + h + d)
    bf16 = ml_dtypes.bfloat16
    q, dy = (rng.standard_normal((b, h, d, s)).astype(bf16) for _ in range(2))
    k, v = (rng.standard_normal((b, hk, d, s)).astype(bf16) for _ in range(2))
    scale = 1.0 if causal else 1 / math.sqrt(d)           # as test_attention_bwd.py
    _, o, lse, *_ = _attention_fwd64(q, k, v, scale, causal, window or 0)
    o = o.astype(bf16)
    lse_tiles = np.ascontiguousarray(lse.reshape(b, h, s // 128, 128).transpose(0, 1, 3, 2)).astype(np.float32)
    kernel = mod.attention_bwd[lnc] if lnc > 1 else mod.attention_bwd
    with warnings.catch_warnings():
        # the kernel memsets its PSUM accumulators and matmuls onto them (npusim warns: undefined on NC-v2/v3)
        warnings.simplefilter("ignore", PsumAccumulateWarning)
        dq, dk, dv = nki.simulate(kernel, target=target)(q, k, v, o, dy, lse_tiles, use_causal_mask=causal,
                                                         mixed_precision=True, softmax_scale=scale,
                                                         sliding_window=window)[:3]
    for got, want in zip((dq, dk, dv), _attention_grads64(q, k, v, o, dy, scale, causal, window or 0)):
        max_allclose(got, want, rtol=2e-2, atol=1e-5)     # test_attention_bwd.py's accuracies


# ---- context-encoding projections: output_projection_cte, qkv_cte ----

@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("b,n,d,s,h,bias,lnc", [(1, 4, 128, 512, 1024, True, 1), (2, 2, 64, 512, 2048, False, 2)])
def test_output_projection_cte(target, b, n, d, s, h, bias, lnc):
    mod = load("core.output_projection.output_projection_cte.output_projection_cte")
    rng = np.random.default_rng(s + h + n)
    bf16 = ml_dtypes.bfloat16
    att = rng.standard_normal((b, n, d, s)).astype(bf16)           # [B, N, D, S]
    w = (rng.standard_normal((n * d, h)) * 0.05).astype(bf16)
    bv = rng.standard_normal((1, h)).astype(bf16) if bias else None
    kernel = mod.output_projection_cte[lnc] if lnc > 1 else mod.output_projection_cte
    got = nki.simulate(kernel, target=target)(att, w, bv)
    want = att.astype(np.float64).transpose(0, 3, 1, 2).reshape(b, s, n * d) @ w.astype(np.float64)
    if bias:
        want += bv.astype(np.float64)
    max_allclose(got, want, rtol=2e-2, atol=1e-5)             # test_output_proj_cte.py's


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("b,s,h,i,norm,fused_add,lnc", [
    (1, 512, 1024, 768, "RMS_NORM", False, 1), (1, 512, 2048, 1536, "NO_NORM", False, 2),
    (2, 256, 1024, 512, "LAYER_NORM", True, 1),
])
def test_qkv_cte(target, b, s, h, i, norm, fused_add, lnc):
    mod = load("core.qkv.qkv_cte")
    ct = load("core.utils.common_types")
    rng = np.random.default_rng(s + h + i)
    bf16 = ml_dtypes.bfloat16
    x = rng.standard_normal((b, s, h)).astype(bf16)
    w = (rng.standard_normal((h, i)) * 0.03).astype(bf16)
    gamma, beta = rng.standard_normal((1, h)).astype(bf16), rng.standard_normal((1, h)).astype(bf16)
    kw = dict(fused_norm_type=getattr(ct.NormType, norm))
    if norm != "NO_NORM":
        kw["gamma_norm_weights"] = gamma
    if norm == "LAYER_NORM":
        kw["layer_norm_bias"] = beta
    prev = None
    if fused_add:
        prev = (rng.standard_normal((b, s, h)).astype(bf16), rng.standard_normal((b, s, h)).astype(bf16))
        kw.update(fused_residual_add=True, mlp_prev=prev[0], attention_prev=prev[1])
    kernel = nki.jit(mod.qkv_cte)
    got = nki.simulate(kernel[lnc] if lnc > 1 else kernel, target=target)(x, w, **kw)
    if isinstance(got, tuple):
        got = got[0]
    want = _qkv_ref(x, w, norm, gamma, beta, prev)
    max_allclose(got, want.reshape(got.shape), rtol=2e-2, atol=1e-5)     # test_qkv_cte.py's default


# ---- rmsnorm_mx_quantize_tkg (RMSNorm then quantize_mx, outputs in SBUF; trn3 MX, LNC2 only) ----

def _rmsnorm_mx_kernel(mod):
    """Our driver: the SBUF outputs the subkernel wants, then stored to HBM (the fp8 x4 data as uint32)."""
    import npusim.nki.isa as nisa
    import npusim.nki.language as nl

    def kernel(x, gamma):
        b, s, h = x.shape
        out = nl.ndarray((128, b * s, h // 128), dtype=x.dtype, buffer=nl.sbuf)
        quant = nl.ndarray((128, h // 512, b * s), dtype=nl.float8_e4m3fn_x4, buffer=nl.sbuf)
        scale = nl.ndarray((128, h // 512, b * s), dtype=nl.uint8, buffer=nl.sbuf)
        mod.rmsnorm_mx_quantize_tkg(x, gamma, out, quant, scale)
        results = []
        for t, dt in ((out, x.dtype), (quant.view(nl.uint32), nl.uint32), (scale, nl.uint8)):
            hbm = nl.ndarray(t.shape, dtype=dt, buffer=nl.shared_hbm)
            nisa.dma_copy(dst=hbm, src=t)
            results.append(hbm)
        return tuple(results)
    return nki.jit(kernel)


@pytest.mark.parametrize("b,s,h", [(1, 4, 2048), (2, 4, 4096)])
def test_rmsnorm_mx_quantize_tkg(b, s, h):
    mod = load("core.subkernels.rmsnorm_mx_quantize_tkg")
    rng = np.random.default_rng(h + b)
    bf16 = ml_dtypes.bfloat16
    x = rng.standard_normal((b, s, h)).astype(bf16)
    gamma = rng.standard_normal((1, h)).astype(bf16)
    with warnings.catch_warnings():
        # the LNC2 gather sends whole tiles of which each core wrote its own tokens
        warnings.simplefilter("ignore", UninitializedReadWarning)
        out, quant, scale = nki.simulate(_rmsnorm_mx_kernel(mod)[2], target="trn3")(x, gamma)
    n = _rms_rows(x, gamma)                                                  # [B*S, H]
    max_allclose(out, n.reshape(b * s, h // 128, 128).transpose(2, 0, 1), rtol=1e-2, atol=1e-3)   # the test's; hidden_dim_tp
    # MX: data partition p's scale sits in row (p // 32) * 32 + (p % 32) // 8 (4 rows per quadrant); every
    # token's dequantized values are its normalized values up to fp8 e4m3 rounding (half an ulp: 2^-4)
    vals = quant.view(np.uint8).reshape(128, h // 512, b * s, 4).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    p = np.arange(128)
    deq = vals * (2.0 ** (scale[(p // 32) * 32 + (p % 32) // 8].astype(np.float64) - 127))[..., None]
    for t in range(b * s):
        got_t, want_t = np.sort(deq[:, :, t, :].ravel()), np.sort(n[t])
        assert np.abs(got_t - want_t).max() <= 2.0 ** -4 * np.abs(want_t).max()


# ---- experimental find_nonzero_indices_with_count (one row through nonzero_with_count) ----

@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("t,density,dtype", [(32, 0.0, np.float32), (512, 1 / 32, np.float32), (2048, 5 / 32, np.int32),
                                             (64, 1.0, np.int32)])
def test_find_nonzero_indices_with_count(target, t, density, dtype):
    mod = load("experimental.benchmark.find_nonzero_indices_with_count")
    rng = np.random.default_rng(t)
    x = ((rng.random((1, t)) < density) * rng.integers(1, 9, (1, t))).astype(dtype)
    with warnings.catch_warnings():
        # the kernel loads partition 0 only; the instruction also reads the other cores' (unused) partitions
        warnings.simplefilter("ignore", UninitializedReadWarning)
        got = nki.simulate(mod.find_nonzero_indices_with_count, target=target)(x)
    nz = np.flatnonzero(x[0])
    want = np.concatenate([nz, np.full(t - nz.size, -1), [nz.size]])[None, :]
    np.testing.assert_array_equal(got, want)                 # [indices..., -1 padding..., count]


# ---- experimental attention_block_tkg (RMSNorm, QKV, RoPE, decode attention, output projection fused) ----

def _attention_block_ref(x, gamma, w_qkv, cos, sin, k_cache, v_cache, mask, w_out, qh, d):
    """The docstring's pseudocode in float64: RMSNorm(X) @ W_qkv split into q_heads Q heads, one K and one V
    head; RoPE on contiguous halves; the new K/V take the last S_tkg cache positions; softmax(Q K^T / sqrt(d)
    masked) V; then @ W_out. Returns (out [B*S, H], K_out [d, B, S], V_out [B, 1, S, d])."""
    b, s, h = x.shape
    xf = x.astype(np.float64).reshape(b * s, h)
    if gamma is not None:
        xf = xf / np.sqrt((xf * xf).mean(axis=1, keepdims=True) + 1e-6) * gamma.astype(np.float64)
    qkv = xf @ w_qkv.astype(np.float64)
    q, k, v = qkv[:, :qh * d].reshape(b * s, qh, d), qkv[:, qh * d:(qh + 1) * d], qkv[:, (qh + 1) * d:]
    if cos is not None:
        c = np.concatenate([cos, cos]).astype(np.float64).reshape(d, b * s).T
        sn = np.concatenate([sin, sin]).astype(np.float64).reshape(d, b * s).T

        def rot(t):
            return np.concatenate([-t[..., d // 2:], t[..., :d // 2]], axis=-1)
        k, q = k * c + rot(k) * sn, q * c[:, None] + rot(q) * sn[:, None]
    kc, vc = k_cache.astype(np.float64).copy(), v_cache.astype(np.float64).copy()
    kc[:, -s:], vc[:, -s:] = k.reshape(b, s, d), v.reshape(b, s, d)
    sc = np.einsum("bsqd,bkd->bqsk", q.reshape(b, s, qh, d), kc) / math.sqrt(d)
    sc = np.where(mask.transpose(1, 2, 3, 0) != 0, sc, -np.inf)
    p = np.exp(sc - sc.max(axis=-1, keepdims=True))
    att = np.einsum("bqsk,bkd->bsqd", p / p.sum(axis=-1, keepdims=True), vc).reshape(b * s, qh * d)
    return att @ w_out.astype(np.float64), k.T.reshape(d, b, s), v.reshape(b, 1, s, d)


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("b,s,h,d,qh,ctx,norm,rope,lnc", [
    (2, 1, 1024, 128, 4, 512, True, True, 1), (4, 2, 1024, 64, 8, 1024, False, True, 1),
    (2, 1, 2048, 128, 8, 1024, True, False, 2),
])
def test_attention_block_tkg(target, b, s, h, d, qh, ctx, norm, rope, lnc):
    mod = load("experimental.transformer.attention_block_tkg")
    ct = load("core.utils.common_types")
    rng = np.random.default_rng(h + ctx + qh)
    bf16 = ml_dtypes.bfloat16
    x = rng.standard_normal((b, s, h)).astype(bf16)
    gamma = rng.standard_normal((1, h)).astype(bf16) if norm else None
    w_qkv = (rng.standard_normal((h, d * (qh + 2))) / math.sqrt(h)).astype(bf16)
    k_cache, v_cache = (rng.standard_normal((b, ctx, d)).astype(bf16) for _ in range(2))
    mask = np.zeros((ctx, b, qh, s), np.uint8)
    for i, n in enumerate(rng.integers(ctx // 4, ctx - s, size=b)):
        mask[:n, i] = 1
        for a in range(s):
            mask[ctx - s:ctx - s + a + 1, i, :, a] = 1
    w_out = (rng.standard_normal((qh * d, h)) / math.sqrt(qh * d)).astype(bf16)
    cos = sin = None
    if rope:
        ang = rng.uniform(0, 2 * math.pi, (d // 2, b, s))
        cos, sin = np.cos(ang).astype(bf16), np.sin(ang).astype(bf16)
    none = ct.QuantizationType.NONE
    kernel = mod.attention_block_tkg[lnc] if lnc > 1 else mod.attention_block_tkg
    out, k_out, v_out = nki.simulate(kernel, target=target)(
        x, None, norm, 1e-6, gamma, w_qkv, None, none, None, None,          # X, RMSNorm, QKV projection
        False, 0.0, None, None, cos, sin, True, False, 0.0, None, None,      # Q/K RMSNorms off, RoPE
        False, None, k_cache, v_cache, mask, None, False, None,              # flat KV cache, mask, no update
        w_out, None, none, None, None, False, False)                         # output projection to HBM
    want_out, want_k, want_v = _attention_block_ref(x, gamma, w_qkv, cos, sin, k_cache, v_cache, mask, w_out, qh, d)
    max_allclose(out, want_out, rtol=0.015, atol=1e-5)          # test_attention_block_tkg.py (no quantization)
    max_allclose(k_out, want_k, rtol=0.015, atol=1e-5)
    max_allclose(v_out, want_v, rtol=0.015, atol=1e-5)
