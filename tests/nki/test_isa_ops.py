"""dma_copy, tensor_copy, tensor_tensor, memset: values against numpy, and every documented rule."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import run_context


def tile(values, dtype=None, buffer=None):
    values = np.asarray(values)
    t = nl.ndarray(values.shape, dtype or values.dtype, buffer=buffer or nl.sbuf)
    t.write(values.astype(t.tv.dtype.np))
    return t


def hbm(values):
    values = np.asarray(values)
    t = nl.ndarray(values.shape, values.dtype, buffer=nl.hbm)
    t.write(values)
    return t


# ------------------------------------------------------------------------------------------- dma_copy

def test_dma_copy_hbm_sbuf_round_trip_with_reshape(run):
    x = np.arange(128 * 64, dtype=np.float32).reshape(128, 64)
    h, t = hbm(x), nl.ndarray((128, 64), nl.float32)
    nisa.dma_copy(dst=t, src=h)
    out = nl.ndarray((128 * 64,), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    np.testing.assert_array_equal(out.numpy(), x.ravel())


def test_dma_copy_casts_through_fp32(run):
    x = np.array([[1.0 + 2 ** -9, 70000.0, -2.5, 3.7]] * 4, np.float32)
    t = nl.ndarray((4, 4), nl.bfloat16)
    nisa.dma_copy(dst=t, src=hbm(x))
    assert t.numpy().dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(t.numpy(), x.astype(ml_dtypes.bfloat16))
    i = nl.ndarray((4, 4), nl.int8)
    nisa.dma_copy(dst=i, src=t)                        # bf16 -> fp32 -> int8: RNE, saturating
    np.testing.assert_array_equal(i.numpy()[0], [1, 127, -2, 4])


def test_dma_copy_rules(run):
    t = nl.ndarray((128, 64), nl.float32)
    p = nl.ndarray((128, 64), nl.float32, buffer=nl.psum)
    with pytest.raises(ConstraintError, match="does not read PSUM"):
        nisa.dma_copy(dst=t, src=p)
    with pytest.raises(ConstraintError, match="HBM<->SBUF"):
        nisa.dma_copy(dst=p, src=t)
    with pytest.raises(ConstraintError, match="same number of elements"):
        nisa.dma_copy(dst=t, src=hbm(np.zeros((128, 63), np.float32)))
    with pytest.raises(ConstraintError, match="NKI tensor"):
        nisa.dma_copy(dst=t, src=np.zeros((128, 64), np.float32))


# ---------------------------------------------------------------------------------------- tensor_copy

def test_tensor_copy_bit_exact_on_vector_and_through_fp32_on_scalar(run):
    x = np.array([[2 ** 24 + 1, -7]] * 128, np.int32)
    src = tile(x)
    out = nl.ndarray((128, 2), nl.int32)
    nisa.tensor_copy(out, src, engine=nisa.engine.vector)
    np.testing.assert_array_equal(out.numpy(), x)
    nisa.tensor_copy(out, src, engine=nisa.engine.scalar)       # through fp32: 2**24+1 -> 2**24
    np.testing.assert_array_equal(out.numpy()[0], [2 ** 24, -7])
    f = nl.ndarray((128, 2), nl.float16)
    nisa.tensor_copy(f, tile(np.array([[0.1, 65520.0]] * 128, np.float32)))
    np.testing.assert_array_equal(f.numpy()[0], np.array([0.1, 65520.0], np.float32).astype(np.float16))


def test_tensor_copy_rules():
    with run_context("trn1"):
        src, out = tile(np.ones((128, 4), np.float32)), nl.ndarray((128, 4), nl.float32)
        with pytest.raises(ConstraintError, match="not supported on NeuronCore-v2"):
            nisa.tensor_copy(out, src, engine=nisa.engine.scalar)
        p = nl.ndarray((128, 4), nl.float32, buffer=nl.psum)
        with pytest.raises(ConstraintError, match="GpSimd cannot access PSUM"):
            nisa.tensor_copy(p, src, engine=nisa.engine.gpsimd)
        # dtype= has no effect (the matmul tutorials pass the HBM result's dtype): dst's dtype decides
        nisa.tensor_copy(out, src, dtype=nl.bfloat16)
        assert out.numpy().dtype == np.float32
        np.testing.assert_array_equal(out.numpy(), 1.0)
        with pytest.raises(ConstraintError, match="an NKI dtype"):
            nisa.tensor_copy(out, src, dtype=np.float64)


# -------------------------------------------------------------------------------------- tensor_tensor

@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["add", "subtract", "multiply", "maximum", "minimum", "less", "equal", "logical_or",
                        "abs_max"]),
       st.sampled_from(["float32", "bfloat16"]), st.integers(1, 128), st.integers(1, 300))
def test_tensor_tensor_matches_fp32_reference(op, out_dt, p, n):
    rng = np.random.default_rng(p * 1000 + n)
    a = (rng.standard_normal((p, n)) * 4).astype(np.float32)
    b = (rng.standard_normal((p, n)) * 4).astype(np.float32)
    b[:, 0] = a[:, 0]
    ref = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
           "minimum": np.minimum, "less": lambda x, y: (x < y).astype(np.float32),
           "equal": lambda x, y: (x == y).astype(np.float32),
           "logical_or": lambda x, y: ((x != 0) | (y != 0)).astype(np.float32),
           "abs_max": lambda x, y: np.where(np.abs(x) > np.abs(y), x, y)}[op]   # signed; tie -> y
    with run_context("trn3"):
        out = nl.ndarray((p, n), getattr(nl, out_dt))
        nisa.tensor_tensor(out, tile(a), tile(b), getattr(nl, op))
        np.testing.assert_array_equal(out.numpy(), ref(a, b).astype(out.tv.dtype.np))


def test_tensor_tensor_int32_exact_on_gpsimd(run):
    a = np.array([[2 ** 24 + 1, 2 ** 30, -5]] * 8, np.int32)
    b = np.array([[1, 2 ** 30, 3]] * 8, np.int32)
    out = nl.ndarray((8, 3), nl.int32)
    ins = nisa.tensor_tensor(out, tile(a), tile(b), nl.add)
    assert ins.event.engine == "gpsimd"
    np.testing.assert_array_equal(out.numpy()[0], [2 ** 24 + 2, 2 ** 31 - 1, -2])   # exact, saturating
    ins = nisa.tensor_tensor(out, tile(a), tile(b), nl.add, engine=nisa.engine.vector)
    assert ins.event.engine == "vector"
    np.testing.assert_array_equal(out.numpy()[0], [2 ** 24, 2 ** 31 - 1, -2])   # fp32: 2**24+1 -> 2**24
    ins = nisa.tensor_tensor(out, tile(a), tile(b), nl.bitwise_xor)
    np.testing.assert_array_equal(out.numpy(), a ^ b)


def test_tensor_tensor_power_on_gpsimd(run):
    a, b = np.full((4, 4), 2.0, np.float32), np.full((4, 4), 10.0, np.float32)
    out = nl.ndarray((4, 4), nl.float32)
    assert nisa.tensor_tensor(out, tile(a), tile(b), nl.power).event.engine == "gpsimd"
    assert (out.numpy() == 1024).all()
    with pytest.raises(ConstraintError, match="Vector engine has no power"):
        nisa.tensor_tensor(out, tile(a), tile(b), nl.power, engine=nisa.engine.vector)


def test_tensor_tensor_rules(run):
    a, b = tile(np.ones((128, 8), np.float32)), tile(np.ones((128, 8), np.float32))
    out = nl.ndarray((128, 8), nl.float32)
    with pytest.raises(ConstraintError, match="no broadcasting"):
        nisa.tensor_tensor(out, a, tile(np.ones((128, 1), np.float32)), nl.add)
    p1 = tile(np.ones((128, 8), np.float32), buffer=nl.psum)
    p2 = tile(np.ones((128, 8), np.float32), buffer=nl.psum)
    with pytest.raises(ConstraintError, match="not both in PSUM"):
        nisa.tensor_tensor(out, p1, p2, nl.add)
    nisa.tensor_tensor(out, p1, b, nl.add)
    with pytest.raises(ConstraintError, match="binary"):
        nisa.tensor_tensor(out, a, b, nl.abs)
    with pytest.raises(ConstraintError, match="integer"):
        nisa.tensor_tensor(out, a, b, nl.bitwise_and)
    with pytest.raises(ConstraintError, match="one of"):
        nisa.tensor_tensor(out, a, b, nl.add, engine=nisa.engine.scalar)
    with pytest.raises(ConstraintError, match="same number of partitions"):
        nisa.tensor_tensor(out, a, tile(np.ones((64, 8), np.float32)), nl.add)


# --------------------------------------------------------------------------------------------- memset

def test_memset_values_and_rules(run):
    f = nl.ndarray((128, 4), nl.bfloat16)
    nisa.memset(f, 1.005)
    assert (f.numpy() == ml_dtypes.bfloat16(1.005)).all()
    i = nl.ndarray((128, 4), nl.int32)
    nisa.memset(i, 2)
    assert (i.numpy() == 2).all()
    with pytest.raises(ConstraintError, match="2 not 2.0"):
        nisa.memset(i, 2.0)
    u = nl.ndarray((128, 4), nl.uint8)
    with pytest.raises(ConstraintError, match="fits uint8"):
        nisa.memset(u, 256)
    p = nl.ndarray((128, 4), nl.float32, buffer=nl.psum)
    with pytest.raises(ConstraintError, match="PSUM"):
        nisa.memset(p, 0.0, engine=nisa.engine.gpsimd)
    assert nisa.memset(p, 0.0).event.engine == "vector"
    with pytest.raises(ConstraintError, match="one of"):
        nisa.memset(f, 0.0, engine=nisa.engine.scalar)


def test_nki_validation_error_keeps_official_wording(run):
    err = nisa.NkiValidationError("nisa.tensor_tensor", "data1", "partition dim <= 128", (256, 4),
                                  "tensor_tensor data1 partition dimension 256 exceeds maximum 128")
    assert str(err).startswith("tensor_tensor data1 partition dimension 256 exceeds maximum 128")
    assert isinstance(err, ConstraintError)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["float32", "bfloat16", "float16", "float8_e4m3", "float8_e5m2", "int8", "int16",
                        "int32", "uint8"]),
       st.sampled_from(["float32", "bfloat16", "float16", "float8_e5m2", "int8", "int32", "uint8", "uint16"]),
       st.integers(0, 2 ** 32 - 1))
def test_dma_copy_cast_matches_fp32_reference(src_dt, dst_dt, seed):
    from npusim.core.dtypes import cast
    rng = np.random.default_rng(seed)
    x64 = rng.standard_normal((16, 24)) * rng.choice([1, 100, 1e5])
    with run_context("trn2"):
        src = nl.ndarray((16, 24), getattr(nl, src_dt))
        src.write(cast(x64, src.tv.dtype))
        dst = nl.ndarray((16, 24), getattr(nl, dst_dt))
        nisa.dma_copy(dst=dst, src=src)
        ref_in = src.numpy()
        if src_dt == dst_dt:
            want = ref_in
        else:                                         # src -> fp32 -> dst, RNE, integers saturate
            f32 = ref_in.astype(np.float32)
            if dst.tv.dtype.is_int:
                lo, hi = np.iinfo(dst.tv.dtype.np).min, np.iinfo(dst.tv.dtype.np).max
                want = np.clip(np.rint(f32.astype(np.float64)), lo, hi).astype(dst.tv.dtype.np)
            else:
                want = f32.astype(dst.tv.dtype.np)
        np.testing.assert_array_equal(dst.numpy().view(np.uint8), np.ascontiguousarray(want).view(np.uint8))
