"""``NkiTensor.view(dtype)``: the vendor's bit reinterpretation of a tile (``nl.load(a).view(nl.int32)``).

References are numpy's own ``ndarray.view`` on little-endian bytes, built independently in each test."""
import ml_dtypes
import numpy as np
import pytest

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError


def test_float32_bits_as_int32_on_sbuf(run):
    x = np.random.default_rng(0).standard_normal((128, 6)).astype(np.float32)
    x[0, :3] = [1.0, -2.0, 0.0]
    t = nl.ndarray(x.shape, nl.float32)
    t.write(x)
    bits = t.view(nl.int32)
    assert bits.shape == (128, 6) and bits.dtype == nl.int32
    assert list(bits.numpy()[0, :3]) == [0x3F800000, -0x40000000, 0]     # 1.0, -2.0 (0xC0000000), 0.0
    np.testing.assert_array_equal(bits.numpy(), x.view(np.int32))


def test_int32_as_float32_on_hbm(run):
    ints = np.array([[0x3F800000, 0x40490FDB, 0x7F800000, -0x80000000]] * 3, np.int32)
    h = nl.ndarray(ints.shape, nl.int32, buffer=nl.hbm)
    h.write(ints)
    f = h.view(nl.float32)
    got = f.numpy()
    assert got[0, 0] == 1.0 and got[0, 1] == np.float32(np.pi) and np.isposinf(got[0, 2])
    assert got[0, 3] == 0.0 and np.signbit(got[0, 3])                       # -0.0
    np.testing.assert_array_equal(got.view(np.int32), ints)


def test_an_isa_result_reinterpreted_is_its_bits(run):
    """The ported bit-manipulation pattern: compute in float, then read the result's bits."""
    x = np.linspace(-3, 3, 128 * 4, dtype=np.float32).reshape(128, 4)
    a = nl.ndarray(x.shape, nl.float32)
    a.write(x)
    y = nl.ndarray(x.shape, nl.float32)
    nisa.tensor_scalar(y, a, nl.multiply, 2.0)
    want = (x.astype(np.float64) * 2).astype(np.float32).view(np.int32)
    np.testing.assert_array_equal(y.view(nl.int32).numpy(), want)


def test_writes_through_a_view_land_in_the_tile(run):
    t = nl.ndarray((128, 2), nl.float32)
    t.view(nl.uint32).write(np.full((128, 2), 0x40400000, np.uint32))        # the bits of 3.0
    assert (t.numpy() == 3.0).all()


def test_narrowing_regroups_the_last_dim(run):
    x = np.random.default_rng(1).standard_normal((128, 4)).astype(np.float32)
    t = nl.ndarray(x.shape, nl.float32)
    t.write(x)
    half = t.view(nl.bfloat16)
    assert half.shape == (128, 8)
    np.testing.assert_array_equal(half.numpy().view(np.uint16), x.view(np.uint16))
    h = nl.ndarray((3, 2), nl.int32, buffer=nl.hbm)
    h.write(np.array([[0x04030201, -1]] * 3, np.int32))
    b = h.view(nl.uint8)
    assert b.shape == (3, 8)
    assert list(b.numpy()[0]) == [1, 2, 3, 4, 255, 255, 255, 255]        # little-endian bytes


def test_widening_consumes_the_last_dim(run):
    raw = np.arange(128 * 8, dtype=np.int64).astype(np.int8).reshape(128, 8)
    t = nl.ndarray(raw.shape, nl.int8)
    t.write(raw)
    w = t.view(nl.int32)
    assert w.shape == (128, 2)
    b = raw.astype(np.uint8).astype(np.int64)
    want = (b[:, 0::4] | b[:, 1::4] << 8 | b[:, 2::4] << 16 | b[:, 3::4] << 24).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(w.numpy(), want)


def test_a_slice_keeps_its_outer_strides(run):
    x = np.arange(128 * 8, dtype=np.float32).reshape(128, 8)
    t = nl.ndarray(x.shape, nl.float32)
    t.write(x)
    s = t[:, 2:6].view(ml_dtypes.bfloat16)
    assert s.shape == (128, 8)
    np.testing.assert_array_equal(s.numpy().view(np.uint16), x[:, 2:6].copy().view(np.uint16))


def test_view_as_is_the_same_method(run):
    t = nl.ndarray((128, 2), nl.float32)
    t.write(np.full((128, 2), 1.0, np.float32))
    assert (t.view_as(nl.int32).numpy() == 0x3F800000).all()


# ---- every rule ----

def test_only_nki_dtypes(run):
    t = nl.ndarray((128, 2), nl.float32)
    with pytest.raises(ConstraintError, match="an NKI dtype"):
        t.view(np.float64)


def test_changing_the_itemsize_needs_a_contiguous_last_dim(run):
    t = nl.ndarray((128, 8), nl.float32)
    with pytest.raises(ConstraintError, match="last dim is contiguous"):
        t[:, ::2].view(nl.bfloat16)
    assert t[:, ::2].view(nl.int32).shape == (128, 4)      # same itemsize: any strides


def test_the_last_dim_holds_whole_new_elements(run):
    t = nl.ndarray((128, 3), nl.int8)
    with pytest.raises(ConstraintError, match="whole number of new elements"):
        t.view(nl.int32)
    h = nl.ndarray((2, 3), nl.float16, buffer=nl.hbm)
    with pytest.raises(ConstraintError, match="whole number of new elements"):
        h.view(nl.float32)


def test_offset_and_outer_strides_are_whole_new_elements(run):
    h = nl.ndarray((4, 6), nl.int8, buffer=nl.hbm)
    with pytest.raises(ConstraintError, match="offset and outer strides"):
        h[:, 1:5].view(nl.int16)                          # starts at byte 1
    with pytest.raises(ConstraintError, match="offset and outer strides"):
        h[:, 0:4].view(nl.int32)                          # rows 6 bytes apart
    assert h[:, 0:4].view(nl.int16).shape == (4, 2)       # 6 = 3 int16: fine


def test_a_scalar_has_no_dim_to_rescale(run):
    h = nl.ndarray((4, 6), nl.int8, buffer=nl.hbm)
    with pytest.raises(ConstraintError, match="needs a free dim"):
        h[1][2].view(nl.int16)


def test_psum_tiles_reinterpret_too(run):
    x = np.array([[1.5, -0.25]] * 128, np.float32)
    p = nl.ndarray(x.shape, nl.float32, buffer=nl.psum)
    p.write(x)
    np.testing.assert_array_equal(p.view(nl.int32).numpy(), x.view(np.int32))


def test_the_ported_kernel_pattern_load_then_view():
    import npusim.nki as nki

    @nki.jit
    def exponent_bits(a):
        bits = nl.load(a).view(nl.int32)
        out = nl.ndarray(a.shape, nl.int32, buffer=nl.shared_hbm)
        nl.store(out, bits)
        return out

    x = np.random.default_rng(2).standard_normal((16, 8)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate(exponent_bits)(x), x.view(np.int32))
