"""nki.language: load/store, creation, the elementwise ops mapped onto the ISA, loops, tile_size."""
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError


def test_elementwise_ops_map_onto_isa():
    @nki.jit
    def k(a, b):
        out = nl.ndarray((6,) + a.shape, nl.float32, buffer=nl.shared_hbm)
        ta, tb = nl.load(a), nl.load(b)
        nl.store(out[0], nl.add(ta, tb))                  # tensor_tensor
        nl.store(out[1], nl.subtract(ta, 1.0))            # tensor_scalar
        nl.store(out[2], nl.subtract(1.0, ta))            # tensor_scalar, reverse0
        nl.store(out[3], nl.abs(ta))                      # unary tensor_scalar
        nl.store(out[4], nl.maximum(ta, tb, dtype=nl.bfloat16))
        nl.store(out[5], nl.copy(nl.negative(ta)))
        return out

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((128, 32)).astype(np.float32), rng.standard_normal((128, 32)).astype(np.float32)
    y = nki.simulate(k)(a, b)
    np.testing.assert_array_equal(y[0], a + b)
    np.testing.assert_array_equal(y[1], a - 1)
    np.testing.assert_array_equal(y[2], 1 - a)
    np.testing.assert_array_equal(y[3], np.abs(a))
    import ml_dtypes
    np.testing.assert_array_equal(y[4], np.maximum(a, b).astype(ml_dtypes.bfloat16).astype(np.float32))
    np.testing.assert_array_equal(y[5], -a)
    names = {e.name for e in nki.last_run().trace.events}
    assert {"nisa.dma_copy", "nisa.tensor_tensor", "nisa.tensor_scalar", "nisa.activation"} <= names   # nl.copy: ScalarE


def test_creation_and_loops():
    @nki.jit
    def k(a):
        out = nl.ndarray((3, 128, 4), nl.int32, buffer=nl.shared_hbm)
        nl.store(out[0], nl.zeros((128, 4), nl.int32))
        nl.store(out[1], nl.ones((128, 4), nl.int32))
        nl.store(out[2], nl.full((128, 4), 7, nl.int32))
        acc = nl.zeros((128, 4), nl.float32)
        for i in nl.affine_range(2):
            for j in nl.sequential_range(3):
                for _ in nl.static_range(1):
                    nisa.tensor_scalar(acc, acc, nl.add, 1.0)   # in place: a rebound tile would die with the loop
        assert nl.program_ndim() == 0 and nl.num_programs() == 1 and nl.program_id() == 0
        return out, nl.tile_size.pmax, acc.numpy()[0, 0]

    y, pmax, acc = nki.simulate(k)(np.zeros(1, np.float32))
    assert (y[0] == 0).all() and (y[1] == 1).all() and (y[2] == 7).all()
    assert pmax == 128 and acc == 6.0


def test_language_rules():
    @nki.jit
    def k(a):
        t = nl.load(a)
        with pytest.raises(ConstraintError, match="division"):
            nl.divide(t, 2.0)
        with pytest.raises(ConstraintError, match="fails when compiled"):
            nl.fmod(t, 2.0)
        with pytest.raises(ConstraintError, match="at least one operand"):
            nl.add(1.0, 2.0)
        with pytest.raises(ConstraintError, match="no broadcasting"):
            nl.add(t, nl.load(a[:, 0:2]))       # (P, 1) tiles broadcast (tensor_scalar); others do not
        with pytest.raises(ConstraintError, match="axis"):
            nl.program_id(1)
        with pytest.raises(ConstraintError, match="automatically allocated"):   # t holds those bytes
            nl.ndarray((2, 2), nl.float32, address=(0, 0))
        return None

    nki.simulate(k)(np.zeros((128, 8), np.float32))


def test_load_with_dtype_and_strided_input_written_back():
    @nki.jit
    def k(a):
        t = nl.load(a, dtype=nl.bfloat16)
        nl.store(a, nl.add(t, 1.0, dtype=nl.float32))
        return None

    base = np.zeros((128, 16), np.float32)
    base[:, ::2] = 0.5
    view = base[:, ::2]                       # not contiguous: copied in, written back after the run
    nki.simulate(k)(view)
    assert (base[:, ::2] == 1.5).all() and (base[:, 1::2] == 0).all()
