"""NKI tensors: buffers, dtypes, poison, views by slicing / nl.ds / reshape, indexing rules."""
import ml_dtypes
import numpy as np
import pytest

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError, UninitializedReadError, UninitializedReadWarning
from npusim import configure


def test_new_tensors_read_as_poison(run):
    f, i = nl.ndarray((128, 4), nl.float32), nl.ndarray((128, 4), nl.int32)
    with pytest.warns(UninitializedReadWarning):
        assert np.isnan(f.numpy()).all()
    with pytest.warns(UninitializedReadWarning):
        assert (i.numpy() == 4).all()
    with configure(uninitialized="error"):
        with pytest.raises(UninitializedReadError):
            nl.ndarray((128, 4), nl.float32).numpy()


def _whole_sbuf(run):
    """A tensor over every usable SBUF byte: once it is freed, the next one reuses its bytes."""
    a = nl.ndarray((128, run.chip.sbuf_usable // 4), nl.float32)
    a.write(np.ones(a.shape, np.float32))
    return a


def test_freed_space_is_poisoned_again(run):
    a = _whole_sbuf(run)
    del a
    b = nl.ndarray((128, 4), nl.float32)
    assert b.tv.offset == 0                      # the allocator wrapped around to the freed bytes
    with pytest.warns(UninitializedReadWarning):
        assert np.isnan(b.numpy()).all()


def test_partial_writes_after_reuse_leave_the_rest_poisoned(run):
    a = _whole_sbuf(run)
    del a
    b = nl.ndarray((128, 4), nl.float32)           # same bytes, which still hold ones
    assert b.tv.offset == 0
    b[:, 0:2].write(np.full((128, 2), 5.0, np.float32))
    with pytest.warns(UninitializedReadWarning):
        got = b.numpy()
    assert (got[:, 0:2] == 5).all() and np.isnan(got[:, 2:]).all()
    b[:, 2:4].write(np.zeros((128, 2), np.float32))
    assert (b.numpy()[:, 2:] == 0).all()           # now fully written: no warning, no poison


def test_on_chip_slicing_keeps_partition_dim_and_2d(run):
    t = nl.ndarray((128, 64), nl.float32)
    assert t.strides == (64, 1)
    v = t[3:5, 10:20:2]
    assert v.shape == (2, 5) and v.start_partition == 3 and v.strides == (64, 2)
    assert t[7].shape == (1, 64)
    assert t[:, 5].shape == (128, 1)
    assert t[7, 5].shape == (1, 1)
    assert t[nl.ds(64, 32), nl.ds(8, 16)].shape == (32, 16)
    assert t[..., 0:8].shape == (128, 8)
    t.write(np.arange(128 * 64, dtype=np.float32).reshape(128, 64))
    np.testing.assert_array_equal(t[nl.ds(64, 32), nl.ds(8, 16)].numpy(),
                                  np.arange(128 * 64, dtype=np.float32).reshape(128, 64)[64:96, 8:24])


def test_hbm_indexing_drops_dims_and_reshapes_freely(run):
    h = nl.ndarray((4, 8, 16), nl.bfloat16, buffer=nl.hbm)
    assert h.dtype == ml_dtypes.bfloat16
    assert h[1].shape == (8, 16) and h[1, 2].shape == (16,)
    assert h.reshape(32, 16).shape == (32, 16) and h.reshape((-1,)).shape == (512,)


def test_slicing_rules(run):
    t = nl.ndarray((128, 64), nl.float32)
    with pytest.raises(ConstraintError, match="inside dim"):
        t[0:129]
    with pytest.raises(ConstraintError, match="inside dim"):
        t[:, nl.ds(60, 8)]
    with pytest.raises(ConstraintError, match="inside dim"):
        t[128]
    with pytest.raises(ConstraintError, match="no step on dim 0"):
        t[0:128:2]
    with pytest.raises(ConstraintError, match="positive"):
        t[:, ::-1]
    with pytest.raises(ConstraintError, match="at most 2 indices"):
        t[0, 0, 0]


def test_reshape_rules(run):
    t = nl.ndarray((128, 64), nl.float32)
    assert t.reshape(128, 8, 8).shape == (128, 8, 8)
    with pytest.raises(ConstraintError, match="partition dim"):
        t.reshape(64, 128)
    with pytest.raises(ConstraintError, match="cannot reshape array of size"):
        t.reshape(128, 65)
    with pytest.raises(ConstraintError, match="contiguous"):
        t[:, ::2].reshape(128, 4, 8)
    h = nl.ndarray((8, 8), nl.float32, buffer=nl.hbm)
    with pytest.raises(ConstraintError, match="contiguous"):
        h[:, 0:4].reshape(32)


def test_view_as_reinterprets_bits(run):
    t = nl.ndarray((128, 2), nl.float32)
    t.write(np.full((128, 2), 1.0, np.float32))
    assert (t.view_as(nl.int32).numpy() == 0x3F800000).all()


def test_ndarray_rules(run):
    with pytest.raises(ConstraintError, match="at least 2 dimensions"):
        nl.ndarray((128,), nl.float32)
    wide = nl.ndarray((256, 4), nl.float32)      # allocates, as in the official simulator; ISA ops refuse it
    with pytest.raises(ConstraintError, match="memset dst partition dimension 256 exceeds maximum 128"):
        nisa.memset(wide, 0.0)
    with pytest.raises(ConstraintError, match="string names"):
        nl.ndarray((128, 4), nl.float32, buffer="sbuf")
    with pytest.raises(ConstraintError, match="dtype"):
        nl.ndarray((128, 4), "complex64")
    with pytest.raises(ConstraintError, match="positive"):
        nl.ndarray((128, 0), nl.float32)


@pytest.mark.parametrize("name", ["float32", "bfloat16", "float16", "tfloat32", "float8_e4m3", "float8_e5m2",
                                  "int8", "int16", "int32", "uint8", "uint16", "uint32", "bool_"])
def test_every_dtype_allocates(run, name):
    t = nl.ndarray((2, 3), getattr(nl, name))
    assert t.itemsize in (1, 2, 4)


from hypothesis import given, settings, strategies as st  # noqa: E402

from npusim.nki import run_context  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 63), st.integers(1, 64), st.integers(0, 39), st.integers(1, 40), st.integers(1, 4),
       st.booleans())
def test_property_slices_match_numpy(p0, pn, f0, fn, step, hbm):
    src = np.arange(64 * 40, dtype=np.int32).reshape(64, 40)
    with run_context("trn2"):
        t = nl.ndarray((64, 40), nl.int32, buffer=nl.hbm if hbm else nl.sbuf)
        t.write(src)
        p1, f1 = min(64, p0 + pn), min(40, f0 + fn)
        v = t[p0:p1, f0:f1:step]
        np.testing.assert_array_equal(v.numpy(), src[p0:p1, f0:f1:step])
        w = t[nl.ds(p0, p1 - p0), nl.ds(f0, f1 - f0)]
        np.testing.assert_array_equal(w.numpy(), src[p0:p1, f0:f1])
        if not hbm:
            assert v.start_partition == p0
