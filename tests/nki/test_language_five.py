"""Part five language names: ``nl.bypass``, ``nl.prelu``, ``nl.erf_dx``, ``nl.shared_constant`` (the current
API's: an array or a .npy path). References are numpy written here."""
import math

import ml_dtypes
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError


def test_names_exist_and_bypass_is_no_alu_op(run):
    assert repr(nl.bypass) == "nl.bypass" and repr(nl.prelu) == "nl.prelu" and repr(nl.erf_dx) == "nl.erf_dx"
    t = nl.ndarray((4, 4), nl.float32)
    nisa.memset(t, value=1.0)
    with pytest.raises(ConstraintError):                 # only activate2 takes nl.bypass
        nisa.tensor_scalar(dst=t, data=t, op0=nl.bypass, operand0=1.0)


def test_prelu_and_erf_dx_as_language_functions():
    @nki.jit
    def k(a):
        x = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x, src=a)
        out = nl.ndarray((2,) + tuple(a.shape), a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out[0], src=nl.prelu(x))       # nl.activation functions: slope 0 (no relu_param)
        nisa.dma_copy(dst=out[1], src=nl.erf_dx(x))
        return out

    a = np.linspace(-2, 2, 32, dtype=np.float32).reshape(4, 8)
    got = nki.simulate(k, target="trn2")(a)
    np.testing.assert_array_equal(got[0], np.maximum(a, 0))
    want = 2 / math.sqrt(math.pi) * np.exp(-a.astype(np.float64) ** 2)
    np.testing.assert_array_equal(got[1], want.astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16, np.int32, np.uint8])
def test_shared_constant_from_an_array_and_a_npy_file(tmp_path, dtype):
    c = (np.arange(48).reshape(6, 8) - 10).astype(dtype) if np.dtype(dtype).kind != "u" else \
        np.arange(48, dtype=dtype).reshape(6, 8)
    path = str(tmp_path / "c.npy")
    np.save(path, c)
    if dtype is ml_dtypes.bfloat16:      # a .npy keeps ml_dtypes' bf16 as raw 2-byte voids: no NKI dtype
        with nki.run_context("trn2"), pytest.raises(ConstraintError, match="NKI dtype"):
            nl.shared_constant(path)
        path = c

    @nki.jit
    def k(a):
        out = nl.ndarray((2,) + c.shape, c.dtype, buffer=nl.shared_hbm)
        for i, src in enumerate((nl.shared_constant(c), nl.shared_constant(path))):
            assert src.buffer is nl.shared_hbm and src.shape == c.shape
            t = nl.ndarray(c.shape, c.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=src)
            nisa.dma_copy(dst=out[i], src=t)
        return out

    got = nki.simulate(k, target="trn2")(np.zeros(1, np.float32))
    np.testing.assert_array_equal(got[0].view(np.uint8), c.view(np.uint8))
    np.testing.assert_array_equal(got[1].view(np.uint8), c.view(np.uint8))


def test_shared_constant_rules(run, tmp_path):
    def bad(value, rule):
        with pytest.raises(ConstraintError) as e:
            nl.shared_constant(value)
        assert e.value.api == "nl.shared_constant" and e.value.param == "constant" and rule in e.value.rule

    bad(np.zeros(3, np.float64), "NKI dtype")          # float64 is no NKI dtype (dtype_of's rule)
    bad(np.zeros(3, np.int64), "NKI dtype")
    bad([1.0, 2.0], "numpy array")
    bad(str(tmp_path / "missing.npy"), "existing .npy file")
    (tmp_path / "c.txt").write_text("1")
    bad(str(tmp_path / "c.txt"), ".npy file")
