"""nki-library kernels that use ``.ap()`` (kept verbatim under nkilib/, with their helper modules), run
unchanged on trn2 and trn3 against numpy references written here, at the library's own test tolerances.

- experimental/dynamic_shapes/dynamic_elementwise_add.py: ``.ap(scalar_offset=, indirect_dim=0)`` on HBM,
  ``register_alloc``/``register_load``, ``nl.dynamic_range``;
- core/max/cascaded_max.py (+ cascaded_max_utils.py): ``.ap()`` broadcasts and repeats, ``nc_find_index8``,
  ``nc_matmul(is_transpose=True)``, ``nl.NKIObject``, LNC2 grid;
- core/embeddings/rope.py (+ utils/tensor_view.py): strided ``.ap()`` DMA relayouts through nki-library's
  TensorView, ``nl.shared_identity_matrix``;
- core/subkernels/indexed_flatten.py: `.ap(scalar_offset=)` scatter with `oob_mode.skip`, `nisa.sendrecv` on LNC2;
- core/embeddings/rope_hf.py: `.ap()` strided loads of cos/sin or a packed rope_cache, q_out/k_out arguments returned (LNC2);
- core/cumsum/cumsum.py (+ utils/tiled_range.py): no `.ap()`, a carried `tensor_tensor_scan`;
- core/router_topk/router_topk.py (+ utils cross_partition_copy, stream_shuffle_broadcast): `max8`, `nc_find_index8`,
  `.ap(vector_offset=)` scatter into a flattened [T*E] tensor, `core_barrier`, LNC2 token sharding;
- experimental/conv/depthwise_conv1d.py: im2col ``.ap()`` loads; it keeps loop tiles in Python lists
  (issue 15 item 1, loop scoping), so it is skipped until that rule lands.
"""
import math
import os
import sys
import warnings

import ml_dtypes
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import UninitializedReadWarning

sys.path.insert(0, os.path.dirname(__file__))
from nkilib_loader import load  # noqa: E402

TARGETS = ["trn2", "trn3"]


# ---- dynamic_elementwise_add ----

@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("m,h,tiles", [(256, 512, 2), (512, 1024, 4)])
def test_dynamic_elementwise_add_all_tiles(target, m, h, tiles):
    mod = load("experimental.dynamic_shapes.dynamic_elementwise_add")
    rng = np.random.default_rng(m + h)
    a = rng.standard_normal((m, h)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((m, h)).astype(ml_dtypes.bfloat16)
    got = nki.simulate(mod.dynamic_elementwise_add, target=target)(a, b, np.array([[tiles]], np.int32))
    want = (a.astype(np.float32) + b.astype(np.float32)).astype(ml_dtypes.bfloat16)   # fp32 add, RNE to bf16
    np.testing.assert_array_equal(got, want)
    names = [e.name for e in nki.last_run().trace.events]
    assert names.count("nisa.register_load") == 1
    assert names.count("nisa.tensor_tensor") == tiles * (h // 512)


def test_dynamic_elementwise_add_runtime_trip_count_leaves_the_rest_unwritten():
    mod = load("experimental.dynamic_shapes.dynamic_elementwise_add")
    a = np.ones((512, 512), ml_dtypes.bfloat16)
    with pytest.warns(UninitializedReadWarning):          # the kernel's HBM fence reads the untouched rows
        got = nki.simulate(mod.dynamic_elementwise_add, target="trn2")(a, a, np.array([[1]], np.int32))
    np.testing.assert_array_equal(got[:128].astype(np.float32), 2.0)
    assert np.isnan(got[128:].astype(np.float32)).all()   # never written: the simulator's NaN poison


# ---- cascaded_max ----

@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape,lnc", [((1, 4, 4096), 1), ((2, 8, 8192), 2), ((1, 1, 1000), 1),
                                       ((2, 128, 512), 2)])
def test_cascaded_max_values_and_indices(target, shape, lnc):
    mod = load("core.max.cascaded_max")
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    kernel = mod.cascaded_max[lnc] if lnc > 1 else mod.cascaded_max
    values, indices = nki.simulate(kernel, target=target)(x)
    assert values.shape == shape[:-1] + (1,) and indices.shape == shape[:-1] + (1,)
    np.testing.assert_allclose(values[..., 0], x.max(-1), rtol=1e-5, atol=1e-5)     # the library's tolerance
    np.testing.assert_array_equal(indices[..., 0], x.argmax(-1))


def test_cascaded_max_rejects_too_many_rows_per_worker():
    mod = load("core.max.cascaded_max")
    with pytest.raises(AssertionError, match="BxS per worker 384 <= max_pdim 128"):
        nki.simulate(mod.cascaded_max, target="trn2")(np.zeros((3, 128, 512), np.float32))


# ---- RoPE ----

def rope_reference(x, cos, sin, contiguous):
    """rope_torch.py's math on bf16 arrays: every product and sum rounded to bf16, as torch does."""
    c, s = cos[:, :, None, :], sin[:, :, None, :]
    if contiguous:
        h = x.shape[0] // 2
        x1, x2 = x[:h], x[h:]
        return np.concatenate([x1 * c - x2 * s, x1 * s + x2 * c])
    out = np.empty_like(x)
    x1, x2 = x[0::2], x[1::2]
    out[0::2], out[1::2] = x1 * c - x2 * s, x1 * s + x2 * c
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("d,b,h,s,contiguous,relayout,lnc", [
    (64, 1, 2, 128, True, False, 1),
    (128, 2, 2, 64, False, False, 1),      # interleaved: strided .ap() DMA relayout
    (64, 1, 2, 64, False, True, 1),        # interleaved: relayout in SBUF by matmul
    (64, 1, 2, 128, True, False, 2),       # LNC2: sequence sharded across the two programs
])
def test_rope(target, d, b, h, s, contiguous, relayout, lnc):
    mod = load("core.embeddings.rope")
    rng = np.random.default_rng(d + s)
    x = rng.standard_normal((d, b, h, s)).astype(ml_dtypes.bfloat16)
    ang = rng.uniform(0, 2 * math.pi, (d // 2, b, s))
    cos, sin = np.cos(ang).astype(ml_dtypes.bfloat16), np.sin(ang).astype(ml_dtypes.bfloat16)
    kernel = mod.RoPE[lnc] if lnc > 1 else mod.RoPE
    got = nki.simulate(kernel, target=target)(x, cos, sin, lnc_shard=lnc > 1, contiguous_layout=contiguous,
                                             relayout_in_sbuf=relayout)
    assert got.dtype == ml_dtypes.bfloat16
    want = rope_reference(x, cos, sin, contiguous).astype(np.float64)
    np.testing.assert_allclose(got.astype(np.float64), want,
                               rtol=2 ** -7, atol=1e-3)     # test_rope.py: _RTOL = bf16 eps, _ATOL = 1e-3


# ---- depthwise_conv1d ----

def _loop_tiles_outlive_their_iteration() -> bool:
    @nki.jit
    def probe(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        kept = []
        for i in nl.affine_range(1):
            t = nl.ndarray(a.shape, a.dtype)
            nisa.dma_copy(dst=t, src=a)
            kept.append(t)
        nisa.dma_copy(dst=out, src=kept[0])
        return out
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nki.simulate(probe, target="trn2")(np.zeros((1, 4), np.float32))
        return True
    except Exception:
        return False


def depthwise_reference(x, f, stride, pad):
    n, c, _, w = x.shape
    s = f.shape[-1]
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (0, 0), pad))
    q = (w + sum(pad) - s) // stride + 1
    cols = np.stack([xp[..., j * stride:j * stride + s] for j in range(q)], axis=-2)     # [n, c, 1, q, s]
    return np.einsum("ncoqs,cs->ncoq", cols, f[:, 0, 0].astype(np.float64))


@pytest.mark.skipif(not _loop_tiles_outlive_their_iteration(),
                    reason="keeps affine_range tiles in Python lists: needs issue 15 item 1 (loop scoping)")
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n,c,w,s,stride,pad", [(1, 4, 64, 3, 1, (0, 0)), (2, 4, 100, 5, 2, (2, 2)),
                                                (1, 2, 300, 130, 1, (0, 0))])
def test_depthwise_conv1d(target, n, c, w, s, stride, pad):
    mod = load("experimental.conv.depthwise_conv1d")
    rng = np.random.default_rng(w + s)
    x = rng.standard_normal((n, c, 1, w)).astype(np.float32)
    f = rng.standard_normal((c, 1, 1, s)).astype(np.float32)
    got = nki.simulate(mod.depthwise_conv1d_implicit_gemm[2], target=target)(
        x, f, padding=((0, 0), pad), stride=(1, stride), feature_group_count=c)
    np.testing.assert_allclose(got, depthwise_reference(x, f, stride, pad), rtol=1e-4, atol=1e-4)


# ---- indexed_flatten (LNC2: sendrecv between the two cores) ----

def indexed_flatten_reference(x, f_len, output_len, offsets, padding=-1):
    """The kernel docstring's pseudocode: each row's f_len blocks go to block offset + p, if in range."""
    out = np.full((output_len // f_len, f_len), padding, np.int64)
    blocks = x.reshape(x.shape[0], -1, f_len)
    for e in range(x.shape[0]):
        for p in range(blocks.shape[1]):
            if 0 <= offsets[e] + p < out.shape[0]:
                out[offsets[e] + p] = blocks[e, p]
    return out.reshape(-1)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("e,t,f_len,output_len,offsets", [
    (4, 256, 16, 512, [0, 10, 25, 30]),        # rows overlap, the last runs past the end (skipped)
    (3, 512, 32, 1024, [2, 20, -40]),          # odd E (shard 0 takes 2 rows), a negative offset skipped
])
def test_indexed_flatten(target, e, t, f_len, output_len, offsets):
    mod = load("core.subkernels.indexed_flatten")
    x = np.arange(e * t, dtype=np.int32).reshape(e, t)      # later rows hold larger values: the cores' max
    offs = np.array(offsets, np.int32)                      # all-reduce equals the sequential overwrite
    got = nki.simulate(mod.indexed_flatten[2], target=target)(x, f_len, output_len, offs)
    np.testing.assert_array_equal(got, indexed_flatten_reference(x, f_len, output_len, offs))
    assert sum(ev.name == "nisa.sendrecv" for ev in nki.last_run().trace.events) == 2


# ---- rope_hf (HuggingFace layout; returns its q_out / k_out arguments) ----

@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("b,hq,hk,s,d,packed,backward", [(1, 2, 1, 256, 64, False, False),
                                                         (2, 1, 1, 512, 128, True, False),
                                                         (1, 2, 2, 256, 64, False, True)])
def test_rope_hf(target, b, hq, hk, s, d, packed, backward):
    mod = load("core.embeddings.rope_hf")
    rng = np.random.default_rng(s + d)
    q = rng.standard_normal((b, hq, s, d)).astype(np.float32)
    k = rng.standard_normal((b, hk, s, d)).astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi, (b, s, d // 2))
    ang = np.concatenate([ang, ang], axis=-1)
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    q_out, k_out = np.zeros_like(q), np.zeros_like(k)
    kw = {"rope_cache": np.concatenate([cos, sin], axis=-1)} if packed else {"cos": cos, "sin": sin}
    got_q, got_k = nki.simulate(mod.rope_hf[2], target=target)(q, k, q_out, k_out, backward=backward, **kw)

    def rotate_half(x):
        return np.concatenate([-x[..., d // 2:], x[..., :d // 2]], axis=-1)

    sgn = -1.0 if backward else 1.0        # the backward pass rotates the other way (sin -> -sin)
    c, sn = cos[:, None].astype(np.float64), sin[:, None].astype(np.float64)
    for x, got, out in ((q, got_q, q_out), (k, got_k, k_out)):
        want = x * c + sgn * rotate_half(x.astype(np.float64)) * sn
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(out, got)            # written in place into the argument


# ---- cumsum (no .ap(): TiledRange and a carried tensor_tensor_scan; an extra public kernel) ----

@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape,dtype", [((256, 1000), np.float32), ((64, 4, 1024), ml_dtypes.bfloat16),
                                         ((130, 3000), np.float32)])
def test_cumsum(target, shape, dtype):
    mod = load("core.cumsum.cumsum")
    x = np.random.default_rng(shape[-1]).standard_normal(shape).astype(dtype)
    got = nki.simulate(mod.cumsum, target=target)(x)
    assert got.shape == x.shape and got.dtype == x.dtype
    want = np.cumsum(x.astype(np.float64), axis=-1).astype(dtype).astype(np.float64)
    bf16 = dtype == ml_dtypes.bfloat16
    np.testing.assert_allclose(got.astype(np.float64), want, atol=1e-3,      # test_cumsum.py's tolerances
                               rtol=1e-2 if bf16 else 1e-3)


# ---- router_topk (MoE router: matmul, softmax/sigmoid, max8 + nc_find_index8, scatter; LNC2) ----

def router_reference(x_t, w, b, k, act, pre_norm, norm):
    """router_topk_torch.py's math in float64 (it normalises only in the pre-norm pipeline)."""
    logits = x_t.astype(np.float64) @ w + b

    def act_fn(z):
        if act == "softmax":
            e = np.exp(z - z.max(1, keepdims=True))
            return e / e.sum(1, keepdims=True)
        return 1 / (1 + np.exp(-z))

    idx = np.argsort(-logits, axis=1, kind="stable")[:, :k]
    if pre_norm:
        aff = act_fn(logits)
        if norm:
            sel = np.zeros_like(aff)
            np.put_along_axis(sel, idx, np.take_along_axis(aff, idx, 1), 1)
            aff = sel / sel.sum(1, keepdims=True)
    else:
        aff = np.zeros_like(logits)
        np.put_along_axis(aff, idx, act_fn(np.take_along_axis(logits, idx, 1)), 1)
    return logits, idx, aff


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("t,h,e,k,act,pre_norm,norm,layout,indirect,shard", [
    (128, 256, 64, 4, "softmax", True, False, 0, False, False),
    (128, 256, 64, 4, "softmax", True, True, 0, False, False),
    (128, 256, 64, 4, "softmax", False, False, 0, False, False),
    (128, 256, 64, 8, "sigmoid", False, False, 1, True, False),   # indirect-DMA scatter through .ap(vector_offset)
    (256, 512, 128, 2, "softmax", True, False, 1, False, True),   # tokens sharded over the two cores
    (32, 256, 64, 4, "softmax", True, False, 0, True, False),
])
def test_router_topk(target, t, h, e, k, act, pre_norm, norm, layout, indirect, shard):
    mod = load("core.router_topk.router_topk")
    types_ = load("core.utils.common_types")
    rng = np.random.default_rng(t + e + k)
    x_t = rng.standard_normal((t, h)).astype(np.float32)
    w = (rng.standard_normal((h, e)) / 16).astype(np.float32)
    b = rng.standard_normal((1, e)).astype(np.float32)
    logits, affinities, experts = np.zeros((t, e), np.float32), np.zeros((t, e), np.float32), np.zeros((t, k), np.uint32)
    act_type = types_.RouterActFnType.SOFTMAX if act == "softmax" else types_.RouterActFnType.SIGMOID

    def kernel(x, w, b, logits, affinities, experts):          # the library's entry is not @nki.jit itself
        return mod.router_topk(x, w, b, logits, affinities, experts, act_type, k, layout, 0,
                               router_pre_norm=pre_norm, norm_topk_prob=norm, use_indirect_dma_scatter=indirect,
                               shard_on_tokens=shard)

    nki.simulate(nki.jit(kernel)[2], target=target)(x_t if layout == 1 else x_t.T.copy(), w, b, logits, affinities,
                                                    experts)
    want_logits, want_idx, want_aff = router_reference(x_t, w, b, k, act, pre_norm, norm)
    np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(experts, want_idx)
    np.testing.assert_allclose(affinities, want_aff, rtol=1e-5, atol=1e-5)
