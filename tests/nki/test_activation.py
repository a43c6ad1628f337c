"""activation / activation_reduce: the function table against float64 numpy, scale/bias, the reduce
registers, documented input ranges (sin without range reduction), rules and cost."""
import math
import os
import sys
import warnings

import ml_dtypes
import numpy as np
import pytest

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.core.options import configure
from npusim.nki import run_context

sys.path.insert(0, os.path.dirname(__file__))
from helpers_two import rand, tile  # noqa: E402


def _erf64(x):
    return np.vectorize(math.erf)(x)


REF = {
    "exp": np.exp, "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "relu": lambda x: np.maximum(x, 0),
    "gelu": lambda x: 0.5 * x * (1 + _erf64(x / math.sqrt(2))),
    "gelu_apprx_tanh": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
    "silu": lambda x: x / (1 + np.exp(-x)), "softplus": lambda x: np.log1p(np.exp(x)),
    "mish": lambda x: x * np.tanh(np.log1p(np.exp(x))), "square": np.square, "abs": np.abs,
    "erf": _erf64, "arctan": np.arctan, "sin": np.sin, "copy": lambda x: x,
    "gelu_dx": lambda x: 0.5 * (1 + _erf64(x / math.sqrt(2))) + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi),
    "silu_dx": lambda x: (1 / (1 + np.exp(-x))) * (1 + x * (1 - 1 / (1 + np.exp(-x)))),
}


@pytest.mark.parametrize("name", sorted(REF))
def test_activation_functions_match_float64(run, name):
    x = rand((128, 256), 1)
    dst = nl.ndarray(x.shape, nl.float32)
    op = getattr(nl, name)
    ins = nisa.activation(dst, op, tile(x))
    want = REF[name](x.astype(np.float64))
    np.testing.assert_allclose(dst.numpy(), want, rtol=2e-6, atol=3e-7)
    assert ins.event.engine == "scalar" and ins.event.cycles == 256


def test_positive_domain_functions(run):
    x = rand((64, 64), 2, 0.01, 100.0)
    for op, ref in ((nl.log, np.log), (nl.sqrt, np.sqrt), (nl.rsqrt, lambda v: 1 / np.sqrt(v)),
                    (nl.reciprocal, lambda v: 1 / v)):
        dst = nl.ndarray(x.shape, nl.float32)
        nisa.activation(dst, op, tile(x))
        np.testing.assert_allclose(dst.numpy(), ref(x.astype(np.float64)), rtol=2e-7)


def test_scale_and_bias_then_function(run):
    x = rand((128, 64), 3)
    scale = rand((128, 1), 4)
    bias = rand((128, 1), 5)
    dst = nl.ndarray(x.shape, ml_dtypes.bfloat16)
    nisa.activation(dst, nl.tanh, tile(x), bias=tile(bias), scale=tile(scale))
    want = np.tanh((x * scale).astype(np.float32) + bias)
    np.testing.assert_array_equal(dst.numpy(), want.astype(ml_dtypes.bfloat16))
    d2 = nl.ndarray(x.shape, nl.float32)
    nisa.activation(d2, nl.exp, tile(x), scale=0.5, bias=-1.0)     # scalar bias: trn2+
    np.testing.assert_allclose(d2.numpy(), np.exp(x.astype(np.float64) * 0.5 - 1), rtol=2e-6)


def test_scalar_bias_needs_trn2():
    with run_context("trn1"):
        x = tile(rand((4, 8)))
        with pytest.raises(ConstraintError, match="scalar bias exists from NeuronCore-v3"):
            nisa.activation(nl.ndarray((4, 8), nl.float32), nl.exp, x, bias=1.0)


def test_reduce_registers_accumulate_across_calls(run):
    a, b = rand((32, 16), 6), rand((32, 16), 7)
    res = nl.ndarray((32, 1), nl.float32)
    d = nl.ndarray((32, 16), nl.float32)
    nisa.activation(d, nl.copy, tile(a), reduce_op=nl.add, reduce_cmd=nisa.reduce_cmd.reset_reduce)
    ins = nisa.activation(d, nl.square, tile(b), reduce_op=nl.add, reduce_res=res,
                          reduce_cmd=nisa.reduce_cmd.reduce)
    np.testing.assert_allclose(res.numpy()[:, 0], a.sum(1, dtype=np.float64) + (b.astype(np.float64) ** 2).sum(1),
                               rtol=1e-5, atol=1e-5)
    assert ins.event.cycles == 64 + 64              # max(MIN_II, 16) + the accumulator read-out
    nisa.activation(d, nl.copy, tile(a), reduce_op=nl.add, reduce_res=res, reduce_cmd=nisa.reduce_cmd.reset)
    np.testing.assert_array_equal(res.numpy(), 0.0)


def test_activation_reduce_sums_the_activated_values(run):
    x = rand((128, 512), 8)
    d, res = nl.ndarray(x.shape, nl.float32), nl.ndarray((128, 1), nl.float32)
    ins = nisa.activation_reduce(d, nl.exp, tile(x), reduce_op=nl.add, reduce_res=res)
    np.testing.assert_allclose(res.numpy()[:, 0], np.exp(x.astype(np.float64)).sum(1), rtol=1e-5)
    assert ins.event.cycles == 512 + 64


def test_sin_has_no_range_reduction(run):
    x = np.array([[9.0, -9.0, 1.0, 3.0]], np.float32)
    d = nl.ndarray(x.shape, nl.float32)
    with pytest.warns(nisa.ActivationRangeWarning, match="sin"):
        nisa.activation(d, nl.sin, tile(x))
    got = d.numpy()[0]
    assert abs(got[0] - 27.65) < 0.01 and abs(got[1] + 27.65) < 0.01     # the docs' sin(9.0) ~ 27.65
    np.testing.assert_allclose(got[2:], np.sin(x[0, 2:]), rtol=1e-6)


@pytest.mark.parametrize("op, bad", [(nl.log, 0.0), (nl.log, 2.0 ** 65), (nl.rsqrt, 2.0 ** -90),
                                     (nl.reciprocal, 2.0 ** 43), (nl.reciprocal, -(2.0 ** -43))])
def test_documented_input_ranges(run, op, bad):
    x = tile(np.array([[1.0, bad]], np.float32))
    with pytest.warns(nisa.ActivationRangeWarning):
        nisa.activation(nl.ndarray((1, 2), nl.float32), op, x)
    with configure(strict=True):
        with pytest.raises(ConstraintError, match="documented valid range"):
            nisa.activation(nl.ndarray((1, 2), nl.float32), op, x)


def test_inputs_inside_range_do_not_warn(run):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nisa.activation(nl.ndarray((1, 2), nl.float32), nl.log, tile(np.array([[2.0 ** -64, 2.0 ** 64]], np.float32)))


def test_activation_rules(run):
    x = tile(rand((8, 16)))
    d = nl.ndarray((8, 16), nl.float32)
    with pytest.raises(ConstraintError, match="activation function of the table"):
        nisa.activation(d, nl.subtract, x)
    with pytest.raises(ConstraintError, match="only sum"):
        nisa.activation(d, nl.exp, x, reduce_op=nl.maximum, reduce_cmd=nisa.reduce_cmd.reset_reduce)
    with pytest.raises(ConstraintError, match="nl.add when reduce_cmd reduces"):
        nisa.activation(d, nl.exp, x, reduce_cmd=nisa.reduce_cmd.reduce)
    with pytest.raises(ConstraintError, match=r"\(8, 1\) tile"):
        nisa.activation(d, nl.exp, x, reduce_op=nl.add, reduce_res=nl.ndarray((8, 2), nl.float32))
    # [doc] err_activation_bias_invalid_type: fp32, fp16 or bf16 bias vectors; int8 is not supported
    with pytest.raises(ConstraintError, match="float32, float16, or bfloat16"):
        nisa.activation(d, nl.exp, x, bias=tile(np.zeros((8, 1)), np.int8))
    nisa.activation(d, nl.exp, x, bias=tile(np.full((8, 1), 0.5), ml_dtypes.bfloat16))
    np.testing.assert_allclose(d.numpy(), np.exp(x.numpy().astype(np.float32) + np.float32(0.5)), rtol=1e-6)
    with pytest.raises(ConstraintError, match=r"shape \(data.shape\[0\], 1\)"):
        nisa.activation(d, nl.exp, x, scale=tile(np.zeros((8, 2), np.float32)))
    with pytest.raises(ConstraintError, match="same number of elements"):
        nisa.activation(nl.ndarray((8, 8), nl.float32), nl.exp, x)
    with pytest.raises(ConstraintError, match="GpSimd exists from NeuronCore-v4"):
        nisa.activation(d, nl.exp, x, engine=nisa.engine.gpsimd)
    with pytest.raises(ConstraintError, match="reduce_cmd member"):
        nisa.activation(d, nl.exp, x, reduce_cmd="reduce")


def test_activation_on_gpsimd_trn3_and_psum_input():
    with run_context("trn3"):
        x = rand((8, 16))
        d = nl.ndarray((8, 16), nl.float32)
        ins = nisa.activation(d, nl.exp, tile(x), engine=nisa.engine.gpsimd)
        assert ins.event.engine == "gpsimd"
        np.testing.assert_allclose(d.numpy(), np.exp(x.astype(np.float64)), rtol=2e-6)
        with pytest.raises(ConstraintError, match="PSUM"):
            nisa.activation(d, nl.exp, tile(x, buffer=nl.psum), engine=nisa.engine.gpsimd)
        nisa.activation(d, nl.exp, tile(x, buffer=nl.psum))       # ScalarE reads PSUM


def test_nl_activation_functions_return_new_tiles(run):
    x = rand((16, 32), 9)
    t = tile(x)
    for f, ref in ((nl.exp, np.exp), (nl.tanh, np.tanh), (nl.silu, REF["silu"]), (nl.gelu, REF["gelu"])):
        out = f(t)
        assert out.shape == x.shape and out.buffer is nl.sbuf
        np.testing.assert_allclose(out.numpy(), ref(x.astype(np.float64)), rtol=2e-6, atol=3e-7)
    assert nl.exp(t, dtype=nl.bfloat16).dtype == ml_dtypes.bfloat16


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(["exp", "tanh", "sigmoid", "silu", "gelu_apprx_tanh", "copy", "square"]),
       p=st.integers(1, 128), n=st.integers(1, 300), scalar_scale=st.booleans(), seed=st.integers(0, 99),
       out_bf16=st.booleans())
def test_property_scale_bias_function_cast(name, p, n, scalar_scale, seed, out_bf16):
    x = rand((p, n), seed)
    scale = np.float32(0.75) if scalar_scale else rand((p, 1), seed + 1)
    bias = rand((p, 1), seed + 2)
    with run_context("trn2"):
        dst = nl.ndarray((p, n), nl.bfloat16 if out_bf16 else nl.float32)
        nisa.activation(dst, getattr(nl, name), tile(x), bias=tile(bias),
                        scale=float(scale) if scalar_scale else tile(scale))
        got = dst.numpy().astype(np.float64)
    pre = ((x * scale).astype(np.float32) + bias).astype(np.float32)       # the fp32 affine step
    want = REF[name](pre.astype(np.float64))
    if out_bf16:
        np.testing.assert_allclose(got, want, rtol=2 ** -8, atol=1e-30)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=3e-7)


def test_trn3_scalar_engine_streams_bf16_twice_as_fast():
    x = rand((128, 512), 11)
    for target, bf16_cycles in (("trn2", 512), ("trn3", 256)):
        with run_context(target):
            xb = tile(x, ml_dtypes.bfloat16)
            assert nisa.activation(nl.ndarray((128, 512), nl.bfloat16), nl.exp, xb).event.cycles == bf16_cycles
            assert nisa.activation(nl.ndarray((128, 512), nl.float32), nl.exp, xb).event.cycles == 512
            assert nisa.activation(nl.ndarray((128, 512), nl.float32), nl.exp, tile(x)).event.cycles == 512
