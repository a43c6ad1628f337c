"""``NkiTensor.ap()`` and the view methods (permute, broadcast, reshape_dim, slice, expand_dim ...).

Every reference is numpy indexing written here: an access pattern ``[[step, num], ...]`` with ``offset``
reads ``storage.flatten()[offset + sum(step_k * i_k)]`` (the NKI Access Patterns deep dive)."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError


def ap_reference(storage: np.ndarray, pattern, offset=0) -> np.ndarray:
    flat = storage.reshape(-1)
    idx = np.full([n for _, n in pattern], offset, np.int64)
    for k, (s, n) in enumerate(pattern):
        shape = [1] * len(pattern)
        shape[k] = n
        idx = idx + (np.arange(n) * s).reshape(shape)
    return flat[idx]


def sbuf(x, dtype=None):
    t = nl.ndarray(x.shape, dtype or x.dtype, buffer=nl.sbuf)
    t.write(x)
    return t


def hbm(x):
    t = nl.ndarray(x.shape, x.dtype, buffer=nl.hbm)
    t.write(x)
    return t


# ---- .ap() ----

def test_deep_dive_example_columns_8_to_16(run):
    x = np.arange(256, dtype=np.float32).reshape(16, 16)
    a = sbuf(x).ap(pattern=[[16, 16], [1, 8]], offset=8)
    assert a.shape == (16, 8)
    np.testing.assert_array_equal(a.numpy(), x[:, 8:16])
    assert a.get_pattern() == [[16, 16], [1, 8]] and a.offset == 8


def test_positional_pairs_form_of_the_deep_dive(run):
    x = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    np.testing.assert_array_equal(sbuf(x).ap([32, 16], [1, 32]).numpy(), x)


def test_ap_reorders_free_dims_and_feeds_an_isa_op(run):
    x = np.random.default_rng(1).standard_normal((128, 32)).astype(np.float32)
    src = sbuf(x).ap([[32, 128], [1, 4], [4, 8]])          # (128, 4, 8): free dims transposed
    dst = nl.ndarray((128, 4, 8), nl.float32)
    nisa.tensor_copy(dst=dst, src=src)
    np.testing.assert_array_equal(dst.numpy(), x.reshape(128, 8, 4).transpose(0, 2, 1))
    np.testing.assert_array_equal(dst.numpy(), ap_reference(x, [[32, 128], [1, 4], [4, 8]]))


def test_ap_as_a_destination_writes_through_the_pattern(run):
    x = np.random.default_rng(2).standard_normal((64, 16)).astype(np.float32)
    d = nl.ndarray((64, 16), nl.float32)
    nisa.memset(dst=d, value=0.0)
    nisa.tensor_copy(dst=d.ap([[16, 64], [2, 8]], offset=1), src=sbuf(x[:, :8].copy()))
    want = np.zeros((64, 16), np.float32)
    want[:, 1::2] = x[:, :8]
    np.testing.assert_array_equal(d.numpy(), want)


def test_partition_offset_and_dma_from_hbm_pattern(run):
    x = np.arange(4 * 128 * 8, dtype=np.int32).reshape(4, 128, 8)
    h = hbm(x)
    t = nl.ndarray((128, 8), nl.int32)
    nisa.dma_copy(dst=t, src=h.ap([[8, 128], [1, 8]], offset=2 * 128 * 8))
    np.testing.assert_array_equal(t.numpy(), x[2])
    s = sbuf(np.arange(128 * 4, dtype=np.int32).reshape(128, 4))
    np.testing.assert_array_equal(s.ap([[4, 32], [1, 4]], offset=64 * 4).numpy(), s.numpy()[64:96])


def test_dtype_reinterpret_int32_as_bf16(run):
    x = np.random.default_rng(3).integers(-2**31, 2**31 - 1, (128, 256), dtype=np.int64).astype(np.int32)
    a = sbuf(x).ap(pattern=[[512, 128], [1, 512]], offset=0, dtype=nl.bfloat16)
    assert a.shape == (128, 512) and a.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(a.numpy().view(np.uint16), x.view(np.uint16).reshape(128, 512))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_property_hbm_patterns_match_flat_indexing(data):
    n = data.draw(st.integers(8, 200))
    ndim = data.draw(st.integers(1, 5))
    pattern = [[data.draw(st.integers(0, 7)), data.draw(st.integers(1, 4))] for _ in range(ndim)]
    span = sum(s * (k - 1) for s, k in pattern)
    if span >= n:
        return
    offset = data.draw(st.integers(0, n - 1 - span))
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    with nki.run_context("trn2"):
        got = hbm(x).ap(pattern, offset=offset).numpy()
    np.testing.assert_array_equal(got, ap_reference(x, pattern, offset))


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_property_sbuf_patterns_match_flat_indexing(data):
    p, f = data.draw(st.integers(1, 128)), data.draw(st.integers(2, 64))
    parts = data.draw(st.integers(1, p))
    p0 = data.draw(st.integers(0, p - parts))
    free = [[data.draw(st.integers(0, 5)), data.draw(st.integers(1, 4))] for _ in range(data.draw(st.integers(1, 3)))]
    span = sum(s * (k - 1) for s, k in free)
    if span >= f:
        return
    f0 = data.draw(st.integers(0, f - 1 - span))
    pattern = [[f, parts]] + free
    x = np.arange(p * f, dtype=np.float32).reshape(p, f)
    with nki.run_context("trn2"):
        got = sbuf(x).ap(pattern, offset=p0 * f + f0).numpy()
    np.testing.assert_array_equal(got, ap_reference(x, pattern, p0 * f + f0))


def test_ap_rules(run):
    t = nl.ndarray((16, 32), nl.float32)
    cases = [
        (lambda: t.ap(pattern=[[64, 8], [1, 32]]), "partition pair"),                  # every other partition
        # leaving the tensor: the error waits for the instruction that uses the pattern (access.Outside)
        (lambda: nisa.tensor_copy(dst=nl.ndarray((16, 33), nl.float32), src=t.ap(pattern=[[32, 16], [1, 33]])),
         "tensor_copy: parameter 'src' breaks the rule \"the access stays inside the tensor"),
        (lambda: nisa.dma_copy(dst=t.ap(pattern=[[32, 16], [1, 32]], offset=32), src=t), "inside the tensor"),
        (lambda: t.ap(pattern=[[32, 16], [1, 32]], offset=32 * 120), "inside the memory"),
        (lambda: t.ap(pattern=[[32, 16], [1, 8]], offset=-1), "non-negative"),
        (lambda: t.ap(pattern=[[32, 16], [1, 0]]), "num is >= 1"),
        (lambda: t.ap(pattern=[[32, 2]] + [[1, 2]] * 5), "at most 5"),
        (lambda: t.ap(pattern=[32, 16]), "pairs"),
        (lambda: t.ap(pattern=[[32, 16], [2, 16]]).ap(pattern=[[32, 8], [1, 8]]), "another access"),   # a part of it
        (lambda: t[1:3].ap(pattern=[[32, 2], [1, 32]]), "already indexed"),
        (lambda: t.ap(pattern=[[32, 16], [1, 32]], dtype=np.float64), "NKI dtype"),
        (lambda: nl.ndarray((4, 3), nl.int8).ap([[3, 4], [1, 1]], dtype=nl.int16), "whole number"),
    ]
    for make, words in cases:
        with pytest.raises(ConstraintError, match=words):
            make()


def test_reshape_of_a_whole_tensor_keeps_its_storage_for_ap(run):
    x = np.arange(2 * 3 * 8, dtype=np.float32).reshape(2, 3, 8)
    h = hbm(x).reshape((6, 8))
    np.testing.assert_array_equal(h.ap([[8, 3], [1, 8]], offset=24).numpy(), x[1])


# ---- view methods ----

def test_permute_matches_numpy_transpose(run):
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    h = hbm(x)
    for dims in [(0, 1, 3, 2), (2, 0, 1, 3), (1, 2, 3, 0)]:
        np.testing.assert_array_equal(h.permute(*dims).numpy(), x.transpose(dims))
    np.testing.assert_array_equal(h.permute([3, 2, 1, 0]).numpy(), x.transpose(3, 2, 1, 0))
    np.testing.assert_array_equal(h.permute(dims=[1, 0, 2, 3]).numpy(), x.transpose(1, 0, 2, 3))
    s = sbuf(np.arange(8 * 3 * 4, dtype=np.float32).reshape(8, 3, 4))
    np.testing.assert_array_equal(s.permute(0, 2, 1).numpy(), s.numpy().transpose(0, 2, 1))
    with pytest.raises(ConstraintError, match="partition dim .* stays first"):
        s.permute(1, 0, 2)
    with pytest.raises(ConstraintError, match="permutation"):
        h.permute(0, 0, 1, 2)


def test_broadcast_repeats_a_size_one_dim(run):
    x = np.arange(16 * 4, dtype=np.float32).reshape(16, 1, 4)
    s = sbuf(x)
    b = s.broadcast(1, 8)
    assert b.shape == (16, 8, 4) and b.get_pattern()[1] == [0, 8]
    np.testing.assert_array_equal(b.numpy(), np.broadcast_to(x, (16, 8, 4)))
    out = nl.ndarray((16, 8, 4), nl.float32)
    nisa.tensor_copy(dst=out, src=b)
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(x, (16, 8, 4)))
    with pytest.raises(ConstraintError, match="size-1 dim"):
        s.broadcast(2, 8)
    with pytest.raises(ConstraintError, match="partition"):
        sbuf(np.zeros((1, 4), np.float32)).broadcast(0, 8)


def test_expand_squeeze_reshape_flatten_slice_select(run):
    x = np.arange(8 * 6 * 4, dtype=np.float32).reshape(8, 6, 4)
    s = sbuf(x)
    np.testing.assert_array_equal(s.expand_dim(1).numpy(), x[:, None])
    np.testing.assert_array_equal(s.expand_dim(3).numpy(), x[:, :, :, None])
    np.testing.assert_array_equal(s.expand_dim(1).squeeze_dim(1).numpy(), x)
    np.testing.assert_array_equal(s.reshape_dim(1, [2, 3]).numpy(), x.reshape(8, 2, 3, 4))
    np.testing.assert_array_equal(s.reshape_dim(2, [2, -1]).numpy(), x.reshape(8, 6, 2, 2))
    np.testing.assert_array_equal(s.flatten_dims(1, 2).numpy(), x.reshape(8, 24))
    np.testing.assert_array_equal(s.slice(dim=1, start=2, end=6, step=2).numpy(), x[:, 2:6:2])
    np.testing.assert_array_equal(s.slice(0, 2, 5).numpy(), x[2:5])
    np.testing.assert_array_equal(s.select(dim=1, index=4).numpy(), x[:, 4])
    h = hbm(x)
    np.testing.assert_array_equal(h.select(0, 3).numpy(), x[3])
    np.testing.assert_array_equal(h.flatten_dims(start_dim=0, end_dim=1).numpy(), x.reshape(48, 4))
    np.testing.assert_array_equal(h.permute(0, 2, 1).reshape_dim(0, [2, 4]).numpy(),
                                  x.transpose(0, 2, 1).reshape(2, 4, 4, 6))
    v = s.slice(1, 1, 5).permute(0, 2, 1)
    assert v.get_pattern() == [[24, 8], [1, 4], [4, 4]] and v.offset == 4
    assert h.select(0, 2).offset == 48 and s[3:5, 1:2].offset == 3 * 24 + 4


def test_view_method_rules(run):
    s = sbuf(np.zeros((8, 6, 4), np.float32))
    h = hbm(np.zeros((2, 6, 4), np.float32))
    cases = [
        (lambda: s.expand_dim(0), "after the partition dim"),
        (lambda: s.squeeze_dim(1), "size-1 dim"),
        (lambda: s.reshape_dim(1, [4, 2]), "product"),
        (lambda: s.reshape_dim(0, [2, 4]), "partition dim"),
        (lambda: s.flatten_dims(0, 1), "partition dim"),
        (lambda: h.permute(0, 2, 1).flatten_dims(1, 2), "contiguously"),
        (lambda: s.slice(1, 2, 7), "end <= 6"),
        (lambda: s.slice(0, 0, 8, 2), "contiguous"),
        (lambda: s.select(1, 6), "index < 6"),
        (lambda: s.select(0, 1), "partition dim"),
        (lambda: s.select(1, s), "an int"),
        (lambda: h.permute(0, 1, 5), "permutation"),
        (lambda: s.slice(3, 0, 1), "dim of the 3-d"),
    ]
    for make, words in cases:
        with pytest.raises(ConstraintError, match=words):
            make()


# ---- indirect DMA: scalar_offset / vector_offset ----

def _int_tile(values, shape):
    t = nl.ndarray(shape, nl.int32)
    t.write(np.asarray(values, np.int32).reshape(shape))
    return t


def test_scalar_offset_moves_the_indirect_dim_start(run):
    x = np.arange(512 * 16, dtype=np.float32).reshape(512, 16)
    h = hbm(x)
    start = _int_tile([256], (1, 1))
    t = nl.ndarray((128, 8), nl.float32)
    nisa.dma_copy(dst=t, src=h.ap(pattern=[[16, 128], [1, 8]], offset=4, scalar_offset=start, indirect_dim=0))
    np.testing.assert_array_equal(t.numpy(), x[256:384, 4:12])
    nisa.tensor_scalar(dst=start, data=start, op0=nl.add, operand0=128)     # the dynamic_elementwise_add walk
    nisa.dma_copy(dst=t, src=h.ap(pattern=[[16, 128], [1, 8]], offset=4, scalar_offset=start, indirect_dim=0))
    np.testing.assert_array_equal(t.numpy(), x[384:512, 4:12])


def test_vector_offset_gathers_and_scatters_rows(run):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((300, 64)).astype(np.float32)
    idx = rng.permutation(300)[:128]
    h = hbm(x)
    i = _int_tile(idx, (128, 1))
    g = nl.ndarray((128, 64), nl.float32)
    nisa.dma_copy(dst=g, src=h.ap([[64, 128], [1, 64]], offset=0, vector_offset=i, indirect_dim=0))
    np.testing.assert_array_equal(g.numpy(), x[idx])
    out = nl.ndarray((300, 64), nl.float32, buffer=nl.shared_hbm)
    out.write(np.zeros((300, 64), np.float32))
    nisa.dma_copy(dst=out.ap([[64, 128], [1, 64]], offset=0, vector_offset=i, indirect_dim=0), src=g)
    want = np.zeros_like(x)
    want[idx] = x[idx]
    np.testing.assert_array_equal(out.numpy(), want)


def test_vector_offset_scales_by_the_tensors_indirect_dim_stride_and_casts(run):
    """indirect_dim names a dim of the tensor: its row-major stride (here 8, dim 1 of [4, 50, 8]) scales
    the offsets, which replace the pattern's first dim; the pattern's own first step plays no part."""
    x = np.arange(4 * 50 * 8, dtype=np.float32).reshape(4, 50, 8)
    rows = np.array([49, 0, 7, 7, 30, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12], np.int32)
    h = hbm(x)
    i = _int_tile(rows, (16, 1))
    d = nl.ndarray((16, 8), nl.bfloat16)
    nisa.dma_copy(dst=d, src=h.ap([[999, 16], [1, 8]], offset=2 * 400, vector_offset=i, indirect_dim=1))
    np.testing.assert_array_equal(d.numpy(), x[2, rows].astype(ml_dtypes.bfloat16))
    flat = hbm(x.reshape(-1))                      # a 1-D tensor: stride 1, the offsets are element numbers
    e = _int_tile(np.arange(16) * 25, (16, 1))
    d1 = nl.ndarray((16, 1), nl.float32)
    nisa.dma_copy(dst=d1, src=flat.ap([[7, 16], [1, 1]], vector_offset=e, indirect_dim=0))
    np.testing.assert_array_equal(d1.numpy()[:, 0], x.reshape(-1)[np.arange(16) * 25])


def test_out_of_bounds_indices_raise_or_are_skipped(run):
    x = np.arange(10 * 4, dtype=np.float32).reshape(10, 4)
    h = hbm(x)
    i = _int_tile([1, 12, 3, 9], (4, 1))
    d = nl.ndarray((4, 4), nl.float32)
    nisa.memset(dst=d, value=-1.0)
    with pytest.raises(ConstraintError, match="inside the tensor"):
        nisa.dma_copy(dst=d, src=h.ap([[4, 4], [1, 4]], vector_offset=i, indirect_dim=0))
    nisa.dma_copy(dst=d, src=h.ap([[4, 4], [1, 4]], vector_offset=i, indirect_dim=0), oob_mode=nisa.oob_mode.skip)
    want = x[[1, 0, 3, 9]].copy()
    want[1] = -1.0
    np.testing.assert_array_equal(d.numpy(), want)


def test_indirect_rules(run):
    h = hbm(np.zeros((16, 4), np.float32))
    i = _int_tile(np.arange(8), (8, 1))
    f = nl.ndarray((8, 1), nl.float32)
    cases = [
        (lambda: h.ap([[4, 8], [1, 4]], scalar_offset=i[0:1], vector_offset=i), "at most one"),
        (lambda: h.ap([[4, 8], [1, 4]], vector_offset=i, indirect_dim=2), "a dim of the 2-d tensor"),
        (lambda: h.ap([[4, 16], [1, 4]], vector_offset=i), "every position of the pattern's first dim"),
        (lambda: h.ap([[4, 8], [1, 4]], scalar_offset=i), "one element"),
        (lambda: h.ap([[4, 8], [1, 4]], vector_offset=f), "integer"),
        (lambda: h.ap([[4, 8], [1, 4]], vector_offset=h[0:8, 0:1]), "SBUF"),
        (lambda: h.ap([[4, 8], [1, 4]], vector_offset=i)[0:2], "passed to a DMA"),
    ]
    for make, words in cases:
        with pytest.raises(ConstraintError, match=words):
            make()
    s = sbuf(np.zeros((8, 4), np.float32))
    d = nl.ndarray((8, 4), nl.float32)
    with pytest.raises(ConstraintError, match="static access pattern"):
        nisa.tensor_copy(dst=d, src=s.ap([[4, 8], [1, 4]], vector_offset=i))


def test_indirect_dma_waits_for_its_index_tile(run):
    h = hbm(np.arange(256 * 4, dtype=np.float32).reshape(256, 4))
    i = nl.ndarray((128, 1), nl.int32)
    ins = nisa.iota(dst=i, pattern=[[0, 1]], offset=0, channel_multiplier=2)
    d = nl.ndarray((128, 4), nl.float32)
    dma = nisa.dma_copy(dst=d, src=h.ap([[4, 128], [1, 4]], vector_offset=i, indirect_dim=0))
    assert dma.event.start_ns >= ins.event.end_ns
    np.testing.assert_array_equal(d.numpy(), h.numpy()[0:256:2])
