"""Part five: ``nisa.nc_n_gather`` and ``nisa.activate2`` ([stub] docstrings, aws-neuron-sdk 81ce03a).
References are numpy / float64 math written here."""
import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki.runtime import run_context


def sbuf(x, dtype=None, buffer=None):
    x = np.asarray(x)
    t = nl.ndarray(x.shape, dtype or x.dtype, buffer=buffer or nl.sbuf)
    t.write(x.astype(t.tv.dtype.np))
    return t


def f32(x):
    return np.asarray(x, np.float64).astype(np.float32)


# ------------------------------------------------------------------------------------------------ nc_n_gather

def _gather_ref(data, idx):
    p = data.shape[0]
    flat = data.reshape(p, -1)
    return np.stack([flat[i][idx.reshape(p, -1)[i]] for i in range(p)])


@pytest.mark.parametrize("target", ["trn1", "trn2", "trn3"])
def test_nc_n_gather_gathers_inside_each_partition(target):
    rng = np.random.default_rng(0)
    data = rng.standard_normal((64, 4, 32)).astype(np.float32)        # free dims flattened: 128 elements
    idx = rng.integers(0, 128, (64, 2, 5)).astype(np.uint32)          # dst takes indices' free shape
    with run_context(target):
        dst = nl.ndarray((64, 10), nl.float32, buffer=nl.sbuf)
        ins = nisa.nc_n_gather(dst=dst, data=sbuf(data), indices=sbuf(idx))
        np.testing.assert_array_equal(dst.read(), _gather_ref(data, idx))
        assert ins.event.engine == "gpsimd"
        assert ins.event.cycles == 1 * (150 + 10)       # ceil(128 / 512) groups of GPSIMD_START + N


def test_nc_n_gather_cost_counts_512_element_groups(run):
    data = np.arange(2 * 1100, dtype=np.float32).reshape(2, 1100)
    idx = np.array([[0, 1099, 512], [7, 600, 1023]], np.uint32)
    dst = nl.ndarray((2, 3), nl.float32, buffer=nl.sbuf)
    ins = nisa.nc_n_gather(dst=dst, data=sbuf(data), indices=sbuf(idx))
    np.testing.assert_array_equal(dst.read(), [[0, 1099, 512], [1107, 1700, 2123]])
    assert ins.event.cycles == 3 * (150 + 3)            # ceil(1100 / 512) = 3 groups


@settings(max_examples=25, deadline=None)
@given(p=st.integers(1, 128), n=st.integers(1, 300), k=st.integers(1, 40),
       dtype=st.sampled_from([np.float32, ml_dtypes.bfloat16, np.int8, np.uint16, np.int32]),
       seed=st.integers(0, 2 ** 16))
def test_property_nc_n_gather_is_bit_exact_take(p, n, k, dtype, seed):
    rng = np.random.default_rng(seed)
    data = (rng.standard_normal((p, n)) * 50).astype(dtype)
    idx = rng.integers(0, n, (p, k)).astype(np.uint32)
    with run_context("trn2"):
        dst = nl.ndarray((p, k), data.dtype, buffer=nl.sbuf)
        nisa.nc_n_gather(dst=dst, data=sbuf(data), indices=sbuf(idx))
        got = dst.read()
    want = _gather_ref(data, idx)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))      # bit for bit


def test_nc_n_gather_rules(run):
    data = sbuf(np.zeros((32, 16), np.float32))
    idx = sbuf(np.zeros((32, 4), np.uint32))
    dst = nl.ndarray((32, 4), nl.float32, buffer=nl.sbuf)

    def bad(param, rule, **kw):
        args = dict(dst=dst, data=data, indices=idx)
        args.update(kw)
        with pytest.raises(ConstraintError) as e:
            nisa.nc_n_gather(**args)
        assert e.value.api == "nisa.nc_n_gather" and e.value.param == param and rule in e.value.rule

    bad("dst", "SBUF", dst=nl.ndarray((32, 4), nl.float32, buffer=nl.psum))
    bad("data", "SBUF", data=sbuf(np.zeros((32, 16), np.float32), buffer=nl.psum))
    bad("indices", "SBUF", indices=sbuf(np.zeros((32, 4), np.uint32), buffer=nl.psum))
    bad("dst", "dtype of data", dst=nl.ndarray((32, 4), nl.bfloat16, buffer=nl.sbuf))
    bad("indices", "uint32", indices=sbuf(np.zeros((32, 4), np.int32)))
    bad("indices", "uint32", indices=sbuf(np.zeros((32, 4), np.uint16)))
    bad("dst", "same number of partitions", data=sbuf(np.zeros((64, 16), np.float32)))
    bad("dst", "as many elements per partition as indices", dst=nl.ndarray((32, 5), nl.float32, buffer=nl.sbuf))
    bad("indices", "values in [0, 16)", indices=sbuf(np.full((32, 4), 16, np.uint32)))
    bad("dst", "SBUF or PSUM", dst=nl.ndarray((32, 4), nl.float32, buffer=nl.shared_hbm))
    with pytest.raises(ConstraintError):        # partition dim > 128 (the shared operand rule)
        nisa.nc_n_gather(dst=nl.ndarray((256, 4), nl.float32, buffer=nl.sbuf),
                         data=nl.ndarray((256, 16), nl.float32, buffer=nl.sbuf),
                         indices=nl.ndarray((256, 4), nl.uint32, buffer=nl.sbuf))


def test_nc_n_gather_in_a_kernel_against_numpy():
    @nki.jit
    def k(x, ix):
        xs = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=xs, src=x)
        ixs = nl.ndarray(ix.shape, ix.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=ixs, src=ix)
        g = nl.ndarray(ix.shape, x.dtype, buffer=nl.sbuf)
        nisa.nc_n_gather(dst=g, data=xs, indices=ixs)
        out = nl.ndarray(ix.shape, x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=g)
        return out

    rng = np.random.default_rng(5)
    x = rng.standard_normal((128, 256)).astype(np.float32)
    ix = rng.integers(0, 256, (128, 16)).astype(np.uint32)
    got = nki.simulate(k, target="trn2")(x, ix)
    np.testing.assert_array_equal(got, np.take_along_axis(x, ix.astype(np.int64), axis=1))


# ------------------------------------------------------------------------------------------------ activate2

def _stage(x64, op, imm, rev):
    """One fp32 ALU step in float64 then rounded (exact: fp32 products/sums are exact in float64)."""
    a, b = (imm, x64) if rev else (x64, imm)
    r = {"multiply": a * b, "add": a + b, "subtract": a - b}[op]
    return f32(r).astype(np.float64)


OPS = {"multiply": nl.multiply, "add": nl.add, "subtract": nl.subtract, "bypass": nl.bypass}


def test_activate2_doc_example_gelu_of_scale_and_bias():
    @nki.jit
    def activate2_scale_bias_kernel(data_tensor):
        out = nl.ndarray(data_tensor.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.ndarray(data_tensor.shape, dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=x, src=data_tensor)
        result = nl.ndarray(data_tensor.shape, dtype=nl.float32, buffer=nl.sbuf)
        nisa.activate2(dst=result, op=nl.gelu, data=x, imm0=2.0, imm1=0.5, op0=nl.multiply, op1=nl.add)
        nisa.dma_copy(dst=out, src=result)
        return out

    x = np.random.default_rng(1).standard_normal((128, 512)).astype(np.float32)
    got = nki.simulate(activate2_scale_bias_kernel, target="trn3")(x)
    v = _stage(_stage(x.astype(np.float64), "multiply", 2.0, False), "add", 0.5, False)
    want = 0.5 * v * (1.0 + np.vectorize(math.erf)(v / math.sqrt(2.0)))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
    ev = nki.last_run().trace.events
    assert [e.engine for e in ev if e.name == "nisa.activate2"] == ["scalar"]


@settings(max_examples=40, deadline=None)
@given(pair=st.sampled_from([("multiply", "add"), ("multiply", "subtract"), ("multiply", "bypass"),
                             ("add", "bypass"), ("subtract", "bypass"), ("bypass", "bypass")]),
       rev0=st.booleans(), rev1=st.booleans(), tile0=st.booleans(), tile1=st.booleans(),
       func=st.sampled_from(["copy", "square", "relu", "abs"]),
       out_dtype=st.sampled_from([np.float32, ml_dtypes.bfloat16]),
       p=st.integers(1, 128), n=st.integers(1, 70), seed=st.integers(0, 2 ** 16))
def test_property_activate2_matches_float64_reference(pair, rev0, rev1, tile0, tile1, func, out_dtype, p, n,
                                                     seed):
    op0, op1 = pair
    rev0, rev1 = rev0 and op0 != "bypass", rev1 and op1 != "bypass"
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((p, n)) * 4).astype(np.float32)
    c0 = rng.standard_normal((p, 1)).astype(np.float32)
    c1 = rng.standard_normal((p, 1)).astype(np.float32)
    s0, s1 = float(c0[0, 0]), float(c1[0, 0])
    with run_context("trn3"):
        dst = nl.ndarray((p, n), out_dtype, buffer=nl.sbuf)
        nisa.activate2(dst=dst, op=getattr(nl, func), data=sbuf(x), imm0=sbuf(c0) if tile0 else s0,
                       imm1=sbuf(c1) if tile1 else s1, op0=OPS[op0], op1=OPS[op1], reverse0=rev0, reverse1=rev1)
        got = dst.read()
    v = x.astype(np.float64)
    if op0 != "bypass":
        v = _stage(v, op0, c0.astype(np.float64) if tile0 else s0, rev0)
    if op1 != "bypass":
        v = _stage(v, op1, c1.astype(np.float64) if tile1 else s1, rev1)
    y = {"copy": v, "square": v * v, "relu": np.maximum(v, 0), "abs": np.abs(v)}[func]
    want = f32(y).astype(out_dtype)          # fp32 result, then RNE to dst
    np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))


def test_activate2_prelu_slope_is_relu_param_scalar_or_column(run_trn3):
    x = np.array([[-2.0, -0.5, 0.0, 3.0]] * 4, np.float32)
    a = np.array([[0.1], [0.2], [0.5], [1.0]], np.float32)
    d = nl.ndarray((4, 4), nl.float32, buffer=nl.sbuf)
    nisa.activate2(dst=d, op=nl.prelu, data=sbuf(x), imm0=0.0, imm1=0.0, op0=nl.bypass, op1=nl.bypass,
                   relu_param=0.25)
    np.testing.assert_array_equal(d.read(), np.where(x >= 0, x, f32(x.astype(np.float64) * 0.25)))
    nisa.activate2(dst=d, op=nl.prelu, data=sbuf(x), imm0=0.0, imm1=0.0, op0=nl.bypass, op1=nl.bypass,
                   relu_param=sbuf(a))
    np.testing.assert_array_equal(d.read(), np.where(x >= 0, x, f32(x.astype(np.float64) * a)))
    # nisa.activation has no relu_param: its PReLU has slope 0 (a ReLU)
    nisa.activation(dst=d, op=nl.prelu, data=sbuf(x))
    np.testing.assert_array_equal(d.read(), np.maximum(x, 0))


def test_erf_dx_is_the_derivative_of_erf(run_trn3):
    x = np.linspace(-3, 3, 64, dtype=np.float32).reshape(1, 64)
    d = nl.ndarray((1, 64), nl.float32, buffer=nl.sbuf)
    nisa.activate2(dst=d, op=nl.erf_dx, data=sbuf(x), imm0=1.0, imm1=0.0, op0=nl.bypass, op1=nl.bypass)
    want = 2 / math.sqrt(math.pi) * np.exp(-x.astype(np.float64) ** 2)
    np.testing.assert_array_equal(d.read(), f32(want))


@pytest.fixture
def run_trn3():
    with run_context("trn3") as r:
        yield r


def test_activate2_reductions_and_shared_registers(run_trn3):
    rng = np.random.default_rng(7)
    x1 = rng.standard_normal((8, 32)).astype(np.float32)
    x2 = rng.standard_normal((8, 32)).astype(np.float32)
    d = nl.ndarray((8, 32), nl.float32, buffer=nl.sbuf)
    res = nl.ndarray((8, 1), nl.float32, buffer=nl.sbuf)
    kw = dict(imm0=1.0, imm1=0.0, op0=nl.bypass, op1=nl.bypass)
    # maximum: reset_reduce, then reduce on top; the register is written out only by the second call
    nisa.activate2(dst=d, op=nl.copy, data=sbuf(x1), reduce_op=nl.maximum,
                   reduce_cmd=nisa.reduce_cmd.reset_reduce, **kw)
    ins = nisa.activate2(dst=d, op=nl.copy, data=sbuf(x2), reduce_op=nl.maximum, reduce_res=res,
                         reduce_cmd=nisa.reduce_cmd.reduce, **kw)
    np.testing.assert_array_equal(res.read()[:, 0], np.maximum(x1.max(1), x2.max(1)))
    assert ins.event.cycles == 64 + 64                  # max(MIN_II, 32) + the read-out
    # add, accumulating onto what nisa.activation's reduction left in the same ScalarE registers
    nisa.activation(dst=d, op=nl.copy, data=sbuf(x1), reduce_op=nl.add, reduce_cmd=nisa.reduce_cmd.reset_reduce)
    nisa.activate2(dst=d, op=nl.copy, data=sbuf(x2), reduce_op=nl.add, reduce_res=res,
                   reduce_cmd=nisa.reduce_cmd.reduce, **kw)
    np.testing.assert_allclose(res.read()[:, 0], x1.astype(np.float64).sum(1) + x2.astype(np.float64).sum(1),
                               rtol=1e-5, atol=1e-5)
    # minimum with idle: reduce_res gets this instruction's reduction, registers untouched
    nisa.activate2(dst=d, op=nl.copy, data=sbuf(x1), reduce_op=nl.minimum, reduce_res=res, **kw)
    np.testing.assert_array_equal(res.read()[:, 0], x1.min(1))
    # reset: the registers go to the identity of reduce_op
    nisa.activate2(dst=d, op=nl.copy, data=sbuf(x1), reduce_op=nl.maximum, reduce_res=res,
                   reduce_cmd=nisa.reduce_cmd.reset, **kw)
    assert (res.read() == -np.inf).all()


def _abs_fold_ref(row, larger):
    acc = row[0]
    for v in row[1:]:                        # nl.abs_max(x, y): x only when |x| > |y| (a tie gives y)
        acc = acc if (abs(acc) > abs(v) if larger else abs(acc) < abs(v)) else v
    return acc


@settings(max_examples=30, deadline=None)
@given(rows=st.lists(st.lists(st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.0, np.nan, np.inf, -np.inf]),
                              min_size=1, max_size=12), min_size=1, max_size=6).filter(
                                  lambda r: len({len(x) for x in r}) == 1),
       larger=st.booleans())
def test_property_activate2_abs_max_and_abs_min_reductions_fold_in_order(rows, larger):
    x = np.array(rows, np.float32)
    with run_context("trn3"):
        d = nl.ndarray(x.shape, nl.float32, buffer=nl.sbuf)
        res = nl.ndarray((x.shape[0], 1), nl.float32, buffer=nl.sbuf)
        nisa.activate2(dst=d, op=nl.copy, data=sbuf(x), imm0=1.0, imm1=0.0, op0=nl.bypass, op1=nl.bypass,
                       reduce_op=nl.abs_max if larger else nl.abs_min, reduce_res=res,
                       reduce_cmd=nisa.reduce_cmd.reset_reduce)
        got = res.read()[:, 0]
    # reset_reduce: the fold starts from the identity (0 for abs_max, +inf for abs_min)
    want = np.array([_abs_fold_ref([0.0 if larger else np.inf] + list(r), larger) for r in x], np.float32)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_activate2_cost_follows_the_scalar_engine(run_trn3):
    x = sbuf(np.ones((128, 512), np.float32))
    d = nl.ndarray((128, 512), nl.float32, buffer=nl.sbuf)
    kw = dict(imm0=2.0, imm1=1.0, op0=nl.multiply, op1=nl.add)
    assert nisa.activate2(dst=d, op=nl.exp, data=x, **kw).event.cycles == 512
    xb = sbuf(np.ones((128, 512), ml_dtypes.bfloat16))
    db = nl.ndarray((128, 512), nl.bfloat16, buffer=nl.sbuf)
    assert nisa.activate2(dst=db, op=nl.exp, data=xb, **kw).event.cycles == 256     # trn3 narrow ScalarE
    ref = nisa.activation(dst=db, op=nl.exp, data=xb, scale=2.0, bias=1.0).event.cycles
    assert ref == 256                                   # the same as its sibling activation


def test_activate2_rules():
    x = np.ones((32, 8), np.float32)
    with run_context("trn2"):
        with pytest.raises(ConstraintError) as e:
            nisa.activate2(dst=sbuf(x), op=nl.exp, data=sbuf(x), imm0=1.0, imm1=0.0, op0=nl.multiply,
                           op1=nl.add)
        assert e.value.param == "target" and "NeuronCore-v4" in e.value.rule
    with run_context("trn3"):
        data = sbuf(x)
        dst = nl.ndarray((32, 8), nl.float32, buffer=nl.sbuf)

        def bad(param, rule, **kw):
            args = dict(dst=dst, op=nl.exp, data=data, imm0=1.0, imm1=0.0, op0=nl.multiply, op1=nl.add)
            args.update(kw)
            with pytest.raises(ConstraintError) as e:
                nisa.activate2(**args)
            assert e.value.api == "nisa.activate2" and e.value.param == param and rule in e.value.rule, e.value

        bad("op0", "six (op0, op1) pairs", op0=nl.add, op1=nl.add)
        bad("op0", "six (op0, op1) pairs", op0=nl.subtract, op1=nl.add)
        bad("op0", "six (op0, op1) pairs", op0=nl.maximum, op1=nl.bypass)
        bad("op1", "op1 requires op0", op0=nl.bypass, op1=nl.add)
        bad("op0", "nl.bypass", op0=None)
        bad("reverse0", "requires op0", op0=nl.bypass, op1=nl.bypass, reverse0=True)
        bad("reverse1", "requires op1", op1=nl.bypass, op0=nl.multiply, reverse1=True)
        bad("op", "activation function", op=nl.add)
        bad("imm1", "dtype of imm0", imm0=sbuf(np.ones((32, 1), np.float32)),
            imm1=sbuf(np.ones((32, 1), ml_dtypes.bfloat16)))
        bad("imm0", "(data.shape[0], 1)", imm0=sbuf(np.ones((16, 1), np.float32)))
        bad("imm0", "float tile", imm0=sbuf(np.ones((32, 1), np.int32)))
        bad("imm0", "scalar or a tile", imm0="2")
        bad("relu_param", "(data.shape[0], 1)", op=nl.prelu, relu_param=sbuf(np.ones((32, 2), np.float32)))
        bad("reduce_op", "nl.add, nl.maximum", reduce_op=nl.multiply, reduce_cmd=nisa.reduce_cmd.reset_reduce)
        bad("reduce_op", "a reduce op", reduce_cmd=nisa.reduce_cmd.reduce)
        bad("reduce_op", "a reduce op", reduce_res=nl.ndarray((32, 1), nl.float32, buffer=nl.sbuf))
        bad("reduce_cmd", "idle, reset, reduce or reset_reduce", reduce_op=nl.add,
            reduce_cmd=nisa.reduce_cmd.load_reduce)
        bad("reduce_res", "(32, 1)", reduce_op=nl.add, reduce_res=nl.ndarray((32, 2), nl.float32, buffer=nl.sbuf))
        bad("dst", "same number of partitions", dst=nl.ndarray((16, 8), nl.float32, buffer=nl.sbuf))
        bad("dst", "elements per partition", dst=nl.ndarray((32, 4), nl.float32, buffer=nl.sbuf))
        bad("dst", "SBUF or PSUM", dst=nl.ndarray((32, 8), nl.float32, buffer=nl.shared_hbm))
        # PSUM operands are fine (dst and data: SBUF or PSUM)
        ps = nl.ndarray((32, 8), nl.float32, buffer=nl.psum)
        nisa.activate2(dst=ps, op=nl.copy, data=data, imm0=3.0, imm1=0.0, op0=nl.multiply, op1=nl.bypass)
        np.testing.assert_array_equal(ps.read(), 3 * x)


# ------------------------------------------------------------------------------------ tensor_scalar_cumulative

def _cumulative_ref(x, op0, imm0, op1, init):
    """The docstring's pseudocode, element by element: reg = op1(op0(x[i], imm0), reg); out[i] = reg (every
    step rounded to fp32, as the engine computes)."""
    f0 = {"add": np.add, "multiply": np.multiply, "subtract": np.subtract, "maximum": np.maximum}[op0]
    f1 = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
          "minimum": np.minimum}[op1]
    out = np.empty(x.shape, np.float32)
    for p in range(x.shape[0]):
        reg = np.float32(init[p])
        for i in range(x.shape[1]):
            reg = np.float32(f1(np.float32(f0(np.float32(x[p, i]), np.float32(imm0[p]))), reg))
            out[p, i] = reg
    return out


@settings(max_examples=40, deadline=None)
@given(op0=st.sampled_from(["add", "multiply", "subtract", "maximum"]),
       op1=st.sampled_from(["add", "subtract", "multiply", "maximum", "minimum"]),
       cmd=st.sampled_from(["reset_reduce", "load_reduce"]), tile_imm=st.booleans(),
       zeros=st.booleans(), p=st.integers(1, 32), n=st.integers(1, 40), seed=st.integers(0, 2 ** 16))
def test_property_tensor_scalar_cumulative_follows_the_pseudocode(op0, op1, cmd, tile_imm, zeros, p, n, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((p, n)).astype(np.float32)
    if zeros:                              # signed zeros: the max / min tie rule
        x[rng.random((p, n)) < 0.3] = 0.0
        x[rng.random((p, n)) < 0.3] = -0.0
    c0 = (rng.standard_normal((p, 1)) * (0 if zeros else 1)).astype(np.float32)
    c1 = rng.standard_normal((p, 1)).astype(np.float32)
    ident = {"add": 0.0, "subtract": 0.0, "multiply": 1.0, "maximum": -np.inf, "minimum": np.inf}[op1]
    with run_context("trn2"):
        dst = nl.ndarray((p, n), nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar_cumulative(dst=dst, src=sbuf(x), op0=getattr(nl, op0), op1=getattr(nl, op1),
                                      imm0=sbuf(c0) if tile_imm else float(c0[0, 0]),
                                      imm1=sbuf(c1) if tile_imm else float(c1[0, 0]),
                                      reduce_cmd=getattr(nisa.reduce_cmd, cmd))
        got = dst.read()
    imm0 = c0[:, 0] if tile_imm else np.full(p, c0[0, 0])
    init = (c1[:, 0] if tile_imm else np.full(p, c1[0, 0])) if cmd == "load_reduce" else np.full(p, ident)
    want = _cumulative_ref(x, op0, imm0, op1, init)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_tensor_scalar_cumulative_reduce_continues_from_the_vector_accumulator(run):
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    d = nl.ndarray((2, 6), nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar_cumulative(dst=d, src=sbuf(x), op0=nl.add, op1=nl.add, imm0=0.0)
    first = d.read().copy()
    ins = nisa.tensor_scalar_cumulative(dst=d, src=sbuf(x), op0=nl.multiply, op1=nl.add, imm0=2.0,
                                        reduce_cmd=nisa.reduce_cmd.reduce)
    np.testing.assert_array_equal(first, np.cumsum(x, axis=1))
    np.testing.assert_array_equal(d.read(), first[:, -1:] + np.cumsum(2 * x, axis=1))
    assert ins.event.engine == "vector" and ins.event.cycles == 64     # max(MIN_II, N), unpublished
    # the bf16 result: fp32 register, each output rounded (RNE) to bf16
    xb = (np.arange(300, dtype=np.float32) / 7).reshape(1, 300)
    db = nl.ndarray((1, 300), nl.bfloat16, buffer=nl.sbuf)
    ins = nisa.tensor_scalar_cumulative(dst=db, src=sbuf(xb), op0=nl.add, op1=nl.add, imm0=0.0)
    want = np.add.accumulate(xb, axis=1, dtype=np.float32).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(db.read().view(np.uint16), want.view(np.uint16))
    assert ins.event.cycles == 300


def test_tensor_scalar_cumulative_rules(run):
    x = sbuf(np.ones((8, 4), np.float32))
    d = nl.ndarray((8, 4), nl.float32, buffer=nl.sbuf)

    def bad(param, rule, **kw):
        args = dict(dst=d, src=x, op0=nl.add, op1=nl.add, imm0=1.0)
        args.update(kw)
        with pytest.raises(ConstraintError) as e:
            nisa.tensor_scalar_cumulative(**args)
        assert e.value.api == "nisa.tensor_scalar_cumulative" and e.value.param == param and rule in e.value.rule

    bad("src", "int32 / uint32 are not supported", src=sbuf(np.ones((8, 4), np.int32)),
        dst=nl.ndarray((8, 4), nl.int32, buffer=nl.sbuf))
    bad("dst", "int32 / uint32", dst=nl.ndarray((8, 4), nl.uint32, buffer=nl.sbuf))
    bad("op0", "arithmetic ALU op", op0=nl.bitwise_and)
    bad("op0", "arithmetic ALU op", op0=nl.power)              # GpSimd only
    bad("op0", "arithmetic ALU op", op0=nl.abs_max)            # NC-v4 only (trn2 here)
    bad("op1", "nl.add, nl.subtract", op1=nl.logical_or)
    bad("reduce_cmd", "reset_reduce, reduce or load_reduce", reduce_cmd=nisa.reduce_cmd.idle)
    bad("imm1", "required by load_reduce", reduce_cmd=nisa.reduce_cmd.load_reduce)
    bad("imm0", "float32", imm0=sbuf(np.ones((8, 1), ml_dtypes.bfloat16)))
    bad("imm0", "(data.shape[0], 1)", imm0=sbuf(np.ones((4, 1), np.float32)))
    bad("dst", "same number of partitions", dst=nl.ndarray((4, 4), nl.float32, buffer=nl.sbuf))
    bad("dst", "elements per partition", dst=nl.ndarray((8, 2), nl.float32, buffer=nl.sbuf))


# ------------------------------------------------------------------------------------------- sequence_bounds

def _bounds_ref(ids):
    """Runs of equal consecutive ids: [first index, one past the last index]; padding (0): [n, -1]."""
    n = len(ids)
    start, end = np.empty(n, np.int64), np.empty(n, np.int64)
    i = 0
    while i < n:
        j = i
        while j + 1 < n and ids[j + 1] == ids[i]:
            j += 1
        start[i:j + 1], end[i:j + 1] = (n, -1) if ids[i] == 0 else (i, j + 1)
        i = j + 1
    return np.stack([start, end])


def test_sequence_bounds_docstring_example(run):
    ids = np.array([[0, 1, 1, 2, 2, 2, 0, 3, 3]], np.int32)
    dst = nl.ndarray((1, 2, 9), nl.int32, buffer=nl.sbuf)
    ins = nisa.sequence_bounds(dst=dst, segment_ids=sbuf(ids))
    np.testing.assert_array_equal(dst.read()[0], [[9, 1, 1, 3, 3, 3, 9, 7, 7], [-1, 3, 3, 6, 6, 6, -1, 9, 9]])
    assert ins.event.engine == "gpsimd" and ins.event.cycles == 150 + 9        # GPSIMD_START + N, assumed


@settings(max_examples=40, deadline=None)
@given(ids=st.lists(st.integers(0, 4), min_size=1, max_size=200), as_float=st.booleans(), sort=st.booleans())
def test_property_sequence_bounds(ids, as_float, sort):
    ids = np.array(sorted(ids) if sort else ids, np.float32 if as_float else np.int32).reshape(1, -1)
    n = ids.shape[1]
    with run_context("trn2"):
        dst = nl.ndarray((1, 2, n), nl.float32 if as_float else nl.int32, buffer=nl.sbuf)
        nisa.sequence_bounds(dst=dst, segment_ids=sbuf(ids))
        got = dst.read()[0]
    np.testing.assert_array_equal(got, _bounds_ref(ids[0]))


def test_sequence_bounds_rules(run):
    ids = sbuf(np.ones((1, 8), np.int32))
    dst = nl.ndarray((1, 2, 8), nl.int32, buffer=nl.sbuf)

    def bad(param, rule, **kw):
        args = dict(dst=dst, segment_ids=ids)
        args.update(kw)
        with pytest.raises(ConstraintError) as e:
            nisa.sequence_bounds(**args)
        assert e.value.api == "nisa.sequence_bounds" and e.value.param == param and rule in e.value.rule

    bad("segment_ids", "partition dim of 1", segment_ids=sbuf(np.ones((2, 8), np.int32)))
    bad("segment_ids", "float32 or int32", segment_ids=sbuf(np.ones((1, 8), np.int16)))
    bad("dst", "float32 or int32", dst=nl.ndarray((1, 2, 8), nl.bfloat16, buffer=nl.sbuf))
    bad("dst", "shape (1, 2, 8)", dst=nl.ndarray((1, 16), nl.int32, buffer=nl.sbuf))
    bad("dst", "SBUF", dst=nl.ndarray((1, 2, 8), nl.int32, buffer=nl.psum))
    bad("segment_ids", "non-negative integer", segment_ids=sbuf(np.array([[1, 2, -1, 0, 0, 0, 0, 0]], np.int32)))
    bad("segment_ids", "non-negative integer", segment_ids=sbuf(np.full((1, 8), 1.5, np.float32)),
        dst=nl.ndarray((1, 2, 8), nl.float32, buffer=nl.sbuf))
