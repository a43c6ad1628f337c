"""nl.relu / nl.square / nl.rsqrt lower to one ScalarE activation on every target (the compiler's lowering), not to
tensor_scalar (whose relu/square ALU ops exist on trn3 only)."""
import numpy as np
import pytest

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import run_context


@pytest.mark.parametrize("target", ["trn1", "trn2", "trn3"])
@pytest.mark.parametrize("name", ["relu", "square", "rsqrt"])
def test_relu_and_square_run_as_scalar_activation_everywhere(target, name):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 96)).astype(np.float32) * 3
    if name == "rsqrt":
        x = np.abs(x) + np.float32(0.25)           # inside rsqrt's documented input range
    x64 = x.astype(np.float64)
    want = {"relu": lambda: np.maximum(x64, 0), "square": lambda: x64 ** 2, "rsqrt": lambda: 1 / np.sqrt(x64)}[name]()
    with run_context(target) as run:
        t = nl.ndarray(x.shape, nl.float32)
        t.write(x)
        y = getattr(nl, name)(t)
        got = y.numpy()
        ev = run.trace.events[-1]
    assert ev.name == "nisa.activation" and ev.engine == "scalar"
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got.dtype == np.float32


def test_relu_keeps_an_explicit_dtype():
    with run_context("trn1"):
        t = nl.ndarray((8, 8), nl.float32)
        t.write(np.linspace(-4, 4, 64, dtype=np.float32).reshape(8, 8))
        y = nl.relu(t, dtype=nl.bfloat16)
        assert y.tv.dtype.name == "bfloat16"
        want = np.maximum(t.numpy(), 0).astype(nl.bfloat16)        # RNE to bf16 (ml_dtypes)
        assert np.array_equal(y.numpy(), want)


def test_tensor_scalar_relu_still_needs_trn3():
    with run_context("trn2"):
        t, o = nl.ndarray((8, 8), nl.float32), nl.ndarray((8, 8), nl.float32)
        t.write(np.ones((8, 8), np.float32))
        with pytest.raises(ConstraintError, match="trn3"):
            nisa.tensor_scalar(o, t, nl.relu, None)
