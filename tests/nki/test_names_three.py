"""Names real kernels import (issue 15 item 3): nki.typing, nki.dtype, nl.NKIObject, nl.par_dim,
nl.shared_identity_matrix, nl.gelu_apprx_sigmoid, registers and nl.dynamic_range, nisa.dma_transpose,
max8, nc_find_index8, nc_match_replace8, nc_stream_shuffle. References are numpy written here."""
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
import npusim.nki.typing as nt
from npusim.core.errors import ConstraintError


def sbuf(x, dtype=None):
    t = nl.ndarray(x.shape, dtype or x.dtype, buffer=nl.sbuf)
    t.write(np.asarray(x).astype(t.tv.dtype.np))
    return t


def hbm(x):
    t = nl.ndarray(x.shape, x.dtype, buffer=nl.hbm)
    t.write(x)
    return t


# ---- annotations and plain names ----

def test_typing_dtype_nkiobject_par_dim_in_a_kernel():
    @dataclass
    class Cfg(nl.NKIObject):
        scale: float
        dtype: nki.dtype

    @nki.jit
    def k(a: nt.tensor, out_arg: nt.mutable_tensor[[128, 4], nl.float32]):
        cfg = Cfg(scale=2.0, dtype=nl.float32)
        assert isinstance(a, nt.tensor) and not isinstance(3, nt.tensor)
        t = nl.ndarray((nl.par_dim(128), 4), cfg.dtype)
        nisa.dma_copy(dst=t, src=a)
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=cfg.scale)
        nisa.dma_copy(dst=out_arg, src=t)
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out

    a = np.arange(512, dtype=np.float32).reshape(128, 4)
    o = np.zeros_like(a)
    np.testing.assert_array_equal(nki.simulate(k)(a, o), 2 * a)
    np.testing.assert_array_equal(o, 2 * a)                 # the mutable_tensor argument updated in place
    obj = nl.NKIObject(x=1, y="two")
    assert (obj.x, obj.y) == (1, "two")
    with pytest.raises(ConstraintError, match="positive int"):
        nl.par_dim(0)


def test_shared_identity_matrix(run):
    for dt, npdt in ((nl.float32, np.float32), (nl.bfloat16, ml_dtypes.bfloat16), (nl.uint8, np.uint8)):
        e = nl.shared_identity_matrix(64, dtype=dt)
        assert e.shape == (64, 64) and e.buffer is nl.sbuf
        np.testing.assert_array_equal(e.numpy(), np.eye(64, dtype=npdt))
    assert nl.shared_identity_matrix(8).dtype == np.uint8                     # default uint8
    d = nl.ndarray((16, 16), nl.float32)
    assert nl.shared_identity_matrix(16, dtype=nl.float32, dst=d) is d
    np.testing.assert_array_equal(d.numpy(), np.eye(16, dtype=np.float32))
    # the use nki-library makes of it: a TensorE transpose against the identity
    x = np.random.default_rng(0).standard_normal((128, 32)).astype(np.float32)
    p = nl.ndarray((32, 128), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=p, stationary=sbuf(x), moving=nl.shared_identity_matrix(128, dtype=nl.float32))
    np.testing.assert_allclose(p.numpy(), x.T, rtol=0, atol=0)
    with pytest.raises(ConstraintError, match="1..128"):
        nl.shared_identity_matrix(256)
    with pytest.raises(ConstraintError, match=r"\(16, 16\) SBUF tile"):
        nl.shared_identity_matrix(16, dst=nl.ndarray((16, 8), nl.float32))


def test_gelu_apprx_sigmoid_is_x_sigmoid_1702x(run):
    x = np.linspace(-6, 6, 128 * 16, dtype=np.float32).reshape(128, 16)
    x64 = x.astype(np.float64)
    want = x64 / (1 + np.exp(-1.702 * x64))
    y = nl.gelu_apprx_sigmoid(sbuf(x))
    np.testing.assert_allclose(y.numpy(), want, rtol=2e-7, atol=1e-7)
    d = nl.ndarray(x.shape, nl.float32)
    nisa.activation(dst=d, op=nl.gelu_apprx_sigmoid_dx, data=sbuf(x))
    s = 1 / (1 + np.exp(-1.702 * x64))
    np.testing.assert_allclose(d.numpy(), s + 1.702 * x64 * s * (1 - s), rtol=2e-7, atol=1e-7)
    assert abs(float(nl.gelu_apprx_sigmoid(sbuf(np.ones((1, 1), np.float32))).numpy()[0, 0]) - 0.8458) < 1e-4


# ---- registers and dynamic loops ----

def test_registers_and_dynamic_range(run):
    reg = nisa.register_alloc(3)
    assert list(nl.dynamic_range(reg)) == [0, 1, 2]
    count = nl.ndarray((1, 1), nl.int32)
    count.write(np.array([[5]], np.int32))
    r2 = nisa.register_alloc()
    ev = nisa.register_load(r2, count).event
    assert ev.engine == "sync"
    assert list(nl.dynamic_range(1, r2, 2)) == [1, 3]
    nisa.register_move(r2, 7)
    r3 = nisa.register_alloc()
    nisa.register_move(r3, r2)
    out = nl.ndarray((1, 1), nl.float32)
    nisa.register_store(out, r3)
    assert out.numpy()[0, 0] == 7.0
    with pytest.raises(ConstraintError, match="holds a value"):
        list(nl.dynamic_range(nisa.register_alloc()))
    with pytest.raises(ConstraintError, match="compile-time positive int"):
        nl.dynamic_range(0, reg, reg)
    with pytest.raises(ConstraintError, match="exactly one element"):
        nisa.register_load(r2, nl.ndarray((2, 1), nl.int32))
    with pytest.raises(ConstraintError, match="int immediate"):
        nisa.register_alloc(1.5)


def test_register_load_waits_for_the_tile_writer(run):
    t = nl.ndarray((1, 1), nl.int32)
    w = nisa.memset(dst=t, value=4).event
    r = nisa.register_alloc()
    ld = nisa.register_load(r, t).event
    assert ld.start_ns >= w.end_ns and r.value == 4


# ---- dma_transpose ----

@pytest.mark.parametrize("shape,axes", [((16, 48), (1, 0)), ((4, 8, 12), (2, 1, 0)), ((2, 3, 4, 16), (3, 1, 2, 0))])
def test_dma_transpose_matches_numpy(run, shape, axes):
    x = np.random.default_rng(1).standard_normal(shape).astype(ml_dtypes.bfloat16)
    src = hbm(x)
    dst = nl.ndarray(tuple(shape[a] for a in axes), nl.bfloat16)
    nisa.dma_transpose(dst=dst, src=src, axes=axes)
    np.testing.assert_array_equal(dst.numpy(), np.transpose(x, axes))
    dst2 = nl.ndarray(tuple(shape[a] for a in axes), nl.bfloat16)
    ev = nisa.dma_transpose(dst=dst2, src=src).event                    # axes default by rank
    np.testing.assert_array_equal(dst2.numpy(), np.transpose(x, axes))
    assert ev.engine.startswith("dma-q")


def test_dma_transpose_rules(run):
    x = hbm(np.zeros((16, 32), ml_dtypes.bfloat16))
    cases = [
        (lambda: nisa.dma_transpose(dst=nl.ndarray((32, 16), nl.bfloat16), src=x, axes=(0, 1)), "axes"),
        (lambda: nisa.dma_transpose(dst=nl.ndarray((16, 32), nl.bfloat16), src=x), "transposed shape"),
        (lambda: nisa.dma_transpose(dst=nl.ndarray((32, 16), nl.float32), src=x), "src.dtype == dst.dtype"),
        (lambda: nisa.dma_transpose(dst=nl.ndarray((32, 16), nl.bfloat16, buffer=nl.hbm), src=x), "SBUF"),
        (lambda: nisa.dma_transpose(dst=nl.ndarray((32, 8), nl.bfloat16), src=x[0:8],
                                    dge_mode=nisa.dge_mode.hwdge), "16 rows"),
        (lambda: nisa.dma_transpose(dst=nl.ndarray((32, 16), nl.float32),
                                    src=hbm(np.zeros((16, 32), np.float32)), dge_mode=nisa.dge_mode.hwdge),
         "2-byte"),
        (lambda: nisa.dma_transpose(dst=nl.ndarray((32, 16), nl.bfloat16), src=x, dge_mode=nisa.dge_mode.swdge),
         "unknown or hwdge"),
        (lambda: nisa.dma_transpose(dst=nl.ndarray((32, 16), nl.bfloat16), src=x, oob_mode=nisa.oob_mode.skip),
         "indirect src"),
    ]
    for make, words in cases:
        with pytest.raises(ConstraintError, match=words):
            make()


def test_indirect_gather_transpose_doc_example():
    """The docstring's gather_transpose: flat = indices.T.flatten()[:P]; dst = src[flat, :].T."""
    P, F = 128, 128
    rng = np.random.default_rng(2)
    src = rng.standard_normal((512, P)).astype(ml_dtypes.bfloat16)
    idx = rng.permutation(512)[:F].astype(np.uint32).reshape(F, 1)

    @nki.jit
    def gather_transpose(src_hbm, idx_hbm):
        output = nl.ndarray((P, F), dtype=src_hbm.dtype, buffer=nl.shared_hbm)
        idx_sb = nl.load(idx_hbm)
        dst_sb = nl.ndarray((P, F), dtype=src_hbm.dtype, buffer=nl.sbuf)
        nisa.memset(dst=dst_sb, value=0)
        src_ap = src_hbm.ap(pattern=[[P, F], [1, P]], vector_offset=idx_sb, indirect_dim=0)
        nisa.dma_transpose(dst=dst_sb, src=src_ap, axes=(1, 0))
        nisa.dma_copy(dst=output, src=dst_sb)
        return output

    got = nki.simulate(gather_transpose, target="trn2")(src, idx)
    np.testing.assert_array_equal(got, src[idx[:, 0]].T)
    with pytest.raises(ConstraintError, match="trn2 or later"):
        nki.simulate(gather_transpose, target="trn1")(src, idx)
    with pytest.raises(ConstraintError, match="uint32"):
        nki.simulate(gather_transpose, target="trn2")(src, idx.astype(np.int32))


def test_indirect_gather_transpose_with_two_index_columns_reads_them_column_major(run):
    P, N = 128, 2
    src = np.arange(300 * 16, dtype=np.float16).reshape(300, 16)
    h = hbm(src)
    idx = np.random.default_rng(3).integers(0, 300, (P, N)).astype(np.uint32)
    ix = sbuf(idx)
    d = nl.ndarray((16, P * N), nl.float16)
    nisa.dma_transpose(dst=d, src=h.ap([[16, P * N], [1, 16]], vector_offset=ix, indirect_dim=0))
    np.testing.assert_array_equal(d.numpy(), src[idx.T.reshape(-1)].T)


# ---- max8 / nc_find_index8 / nc_match_replace8 ----

def test_max8_descending_per_partition(run):
    x = np.random.default_rng(4).integers(-50, 50, (64, 3, 40)).astype(np.float32)   # ties included
    d = nl.ndarray((64, 8), nl.float32)
    ev = nisa.max8(dst=d, src=sbuf(x)).event
    np.testing.assert_array_equal(d.numpy(), -np.sort(-x.reshape(64, -1), axis=1)[:, :8])
    assert ev.engine == "vector" and ev.cycles == 120
    b = nl.ndarray((64, 8), nl.bfloat16)
    nisa.max8(dst=b, src=sbuf(x))
    np.testing.assert_array_equal(b.numpy(), d.numpy().astype(ml_dtypes.bfloat16))
    with pytest.raises(ConstraintError, match="8..16384"):
        nisa.max8(dst=d, src=sbuf(np.zeros((64, 7), np.float32)))
    with pytest.raises(ConstraintError, match="exactly 8"):
        nisa.max8(dst=nl.ndarray((64, 4), nl.float32), src=sbuf(x))
    with pytest.raises(ConstraintError, match="same number of partitions"):
        nisa.max8(dst=nl.ndarray((32, 8), nl.float32), src=sbuf(x))


def _find_index8_reference(data, vals, sentinel):
    out = np.full(vals.shape, sentinel, np.int64)
    for p in range(data.shape[0]):
        used = set()
        for j in range(8):
            for i, v in enumerate(data[p]):
                if v == vals[p, j] and i not in used:
                    out[p, j] = i
                    used.add(i)
                    break
    return out


def test_nc_find_index8_first_occurrences_duplicates_and_missing(run):
    rng = np.random.default_rng(5)
    data = rng.integers(0, 12, (32, 50)).astype(np.float32)
    vals = -np.sort(-data, axis=1)[:, :8].copy()          # the max8 -> find_index8 pairing, with duplicates
    vals[0, 7] = 99.0                                     # not present
    d = nl.ndarray((32, 8), nl.uint32)
    nisa.nc_find_index8(dst=d, data=sbuf(data), vals=sbuf(vals))
    np.testing.assert_array_equal(d.numpy(), _find_index8_reference(data, vals, 0xFFFFFFFF))
    d16 = nl.ndarray((32, 8), nl.uint16)
    nisa.nc_find_index8(dst=d16, data=sbuf(data), vals=sbuf(vals))
    assert d16.numpy()[0, 7] == 0xFFFF
    with pytest.raises(ConstraintError, match="uint16 or uint32"):
        nisa.nc_find_index8(dst=nl.ndarray((32, 8), nl.int32), data=sbuf(data), vals=sbuf(vals))


def test_nc_match_replace8_docstring_example(run):
    data = np.array([[1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8]], np.float32)
    vals = np.array([[3, 8, 8, 8, 8, 8, 8, 8]], np.float32)
    dst = nl.ndarray((1, 11), nl.float32)
    idx = nl.ndarray((1, 8), nl.uint32)
    nisa.nc_match_replace8(dst=dst, data=sbuf(data), vals=sbuf(vals), imm=-1.0, dst_idx=idx)
    assert list(idx.numpy()[0]) == [2, 10, 9, 8, 7, 6, 5, 4]
    assert list(dst.numpy()[0]) == [1, 2, -1, 4, -1, -1, -1, -1, -1, -1, -1]
    with pytest.raises(ConstraintError, match="immediate float"):
        nisa.nc_match_replace8(dst=dst, data=sbuf(data), vals=sbuf(vals), imm=sbuf(vals))


# ---- nc_stream_shuffle ----

def test_stream_shuffle_broadcast_reverse_and_keep(run):
    x = np.arange(128 * 4, dtype=np.float32).reshape(128, 4)
    rev = list(range(31, -1, -1))
    d = nl.ndarray((128, 4), nl.float32)
    nisa.nc_stream_shuffle(dst=d, src=sbuf(x), shuffle_mask=rev)
    want = x.reshape(4, 32, 4)[:, ::-1].reshape(128, 4)
    np.testing.assert_array_equal(d.numpy(), want)
    b = nl.ndarray((32, 4), nl.float32)
    nisa.nc_stream_shuffle(dst=b, src=sbuf(x[0:1]), shuffle_mask=[0] * 32)          # broadcast partition 0
    np.testing.assert_array_equal(b.numpy(), np.repeat(x[0:1], 32, axis=0))
    keep = [255] * 32
    keep[3] = 5
    nisa.nc_stream_shuffle(dst=b, src=sbuf(x[0:32]), shuffle_mask=keep)
    want = np.repeat(x[0:1], 32, axis=0)
    want[3] = x[5]
    np.testing.assert_array_equal(b.numpy(), want)
    s = sbuf(x[0:32])
    nisa.nc_stream_shuffle(dst=s, src=s, shuffle_mask=rev)                             # in place
    np.testing.assert_array_equal(s.numpy(), x[0:32][::-1])


def test_stream_shuffle_rules(run):
    x = sbuf(np.zeros((128, 4), np.float32))
    big = nl.ndarray((128, 4), nl.float32)
    cases = [
        (lambda: nisa.nc_stream_shuffle(dst=big, src=x, shuffle_mask=[0] * 31), "32 ints"),
        (lambda: nisa.nc_stream_shuffle(dst=big, src=x, shuffle_mask=[40] * 32), "32 ints"),
        (lambda: nisa.nc_stream_shuffle(dst=nl.ndarray((128, 4), nl.int32), src=x, shuffle_mask=[0] * 32),
         "data type"),
        (lambda: nisa.nc_stream_shuffle(dst=big[32:64], src=x[0:64], shuffle_mask=[0] * 32), "start partition"),
        (lambda: nisa.nc_stream_shuffle(dst=big[0:32], src=x[0:4], shuffle_mask=[9] * 32), "exists in src"),
    ]
    for make, words in cases:
        with pytest.raises(ConstraintError, match=words):
            make()
