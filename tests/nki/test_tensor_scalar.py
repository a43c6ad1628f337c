"""nisa.tensor_scalar: the seed's documented examples, every op of the ALU table, every rule."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import run_context


def sbuf_tile(run, values, dtype=None, buffer=None):
    """An on-chip tile holding ``values`` (written directly, no instruction)."""
    values = np.asarray(values)
    t = nl.ndarray(values.shape, dtype or values.dtype, buffer=buffer or nl.sbuf)
    t.write(values.astype(t.tv.dtype.np))
    return t



@nki.jit
def sub_one(a):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    r = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=r, data=t, op0=nl.subtract, operand0=1.0)
    nisa.dma_copy(dst=out, src=r)
    return out


def test_issue_example_sub_one():
    a = np.random.default_rng(0).standard_normal((128, 512)).astype(np.float32)
    y = nki.simulate(sub_one, target="trn2")(a)
    assert y.dtype == np.float32 and y.shape == (128, 512)
    np.testing.assert_array_equal(y, a - np.float32(1))
    names = [(e.engine, e.name) for e in nki.last_run().trace.events]
    assert names[1] == ("vector", "nisa.tensor_scalar") or names[1][1] == "nisa.tensor_scalar"
    assert names[0][0].startswith("dma-q") and names[0][1] == "nisa.dma_copy"


def test_reverse0_one_minus_c(run):
    c = np.random.default_rng(1).standard_normal((128, 512)).astype(np.float32)
    t = sbuf_tile(run, c)
    out = nl.ndarray(c.shape, nl.float32)
    nisa.tensor_scalar(dst=out, data=t, op0=nl.subtract, operand0=1.0, reverse0=True)
    np.testing.assert_array_equal(out.numpy(), np.float32(1) - c)


def test_vector_operand_e_times_f_plus_2_5(run):
    rng = np.random.default_rng(2)
    e = rng.standard_normal((64, 1024)).astype(np.float32)
    f = rng.standard_normal((64, 1)).astype(np.float32)
    te, tf = sbuf_tile(run, e), sbuf_tile(run, f)
    out = nl.ndarray(e.shape, nl.float32)
    nisa.tensor_scalar(dst=out, data=te, op0=nl.multiply, operand0=tf, op1=nl.add, operand1=2.5)
    want = (e.astype(np.float64) * f.astype(np.float64)).astype(np.float32) + np.float32(2.5)
    np.testing.assert_array_equal(out.numpy(), want)


def test_reverse1_and_numpy_ufunc_aliases(run):
    x = np.arange(1, 129 * 4 + 1, dtype=np.float32)[:128 * 4].reshape(128, 4)
    t = sbuf_tile(run, x)
    out = nl.ndarray(x.shape, nl.float32)
    nisa.tensor_scalar(out, t, np.multiply, 2.0, op1=np.subtract, operand1=10.0, reverse1=True)
    np.testing.assert_array_equal(out.numpy(), 10 - 2 * x)


BITVEC_CASES = [
    (nl.bitwise_and, 0x0F0F, lambda u, s: u & np.uint32(s)),
    (nl.bitwise_or, 0x100, lambda u, s: u | np.uint32(s)),
    (nl.bitwise_xor, 0xFFFF, lambda u, s: u ^ np.uint32(s)),
    (nl.left_shift, 3, lambda u, s: u << np.uint32(s)),
    (nl.right_shift, 5, lambda u, s: u >> np.uint32(s)),          # logical, on the bit pattern
]


@pytest.mark.parametrize("op,imm,ref", BITVEC_CASES, ids=lambda c: getattr(c, "name", ""))
def test_bitvec_ops_on_int32(run, op, imm, ref):
    x = np.random.default_rng(3).integers(-2**31, 2**31, (128, 64), dtype=np.int64).astype(np.int32)
    t = sbuf_tile(run, x)
    out = nl.ndarray(x.shape, nl.int32)
    nisa.tensor_scalar(out, t, op, imm)
    want = ref(x.view(np.uint32), imm).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(out.numpy(), want)


def test_bitvec_invert_and_two_ops_and_shift_overflow(run):
    x = np.array([[0, -1, 5, 0x7FFFFFFF]] * 32, np.int32)
    t = sbuf_tile(run, x)
    out = nl.ndarray(x.shape, nl.int32)
    nisa.tensor_scalar(out, t, nl.invert, None, op1=nl.bitwise_and, operand1=0xFF)
    np.testing.assert_array_equal(out.numpy(), (~x) & 0xFF)
    nisa.tensor_scalar(out, t, nl.left_shift, 32)
    np.testing.assert_array_equal(out.numpy(), np.zeros_like(x))
    sh = sbuf_tile(run, np.full((32, 1), 4, np.int32))
    nisa.tensor_scalar(out, t, nl.right_shift, sh)
    np.testing.assert_array_equal(out.numpy(), (x.view(np.uint32) >> 4).view(np.int32))


def _f32(v):
    return np.float32(v)


ARITH = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
    "maximum": np.maximum, "minimum": np.minimum,
    "equal": lambda a, b: (a == b) * 1.0, "not_equal": lambda a, b: (a != b) * 1.0,
    "greater_equal": lambda a, b: (a >= b) * 1.0, "greater": lambda a, b: (a > b) * 1.0,
    "less_equal": lambda a, b: (a <= b) * 1.0, "less": lambda a, b: (a < b) * 1.0,
    "logical_and": lambda a, b: ((a != 0) & (b != 0)) * 1.0, "logical_or": lambda a, b: ((a != 0) | (b != 0)) * 1.0,
    "logical_xor": lambda a, b: ((a != 0) ^ (b != 0)) * 1.0,
}


@pytest.mark.parametrize("name", sorted(ARITH))
def test_every_binary_arithmetic_op_in_fp32(run, name):
    rng = np.random.default_rng(4)
    x = np.round(rng.standard_normal((128, 96)) * 3).astype(np.float32)
    x[0, :4] = [0, 1, -1, 0.5]
    t = sbuf_tile(run, x)
    out = nl.ndarray(x.shape, nl.float32)
    nisa.tensor_scalar(out, t, getattr(nl, name), 1.0)
    want = ARITH[name](x.astype(np.float64), 1.0).astype(np.float32)   # exact in fp32 for these inputs
    np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("name,ref", [("abs", np.abs), ("reciprocal", lambda a: 1 / a),
                                      ("logical_not", lambda a: (a == 0) * 1.0)])
def test_unary_ops_take_none_or_zero(run, name, ref):
    x = np.array([[0.5, -2.0, 4.0, 0.0]] * 128, np.float32)
    t = sbuf_tile(run, x)
    out = nl.ndarray(x.shape, nl.float32)
    with np.errstate(divide="ignore"):
        want = ref(x.astype(np.float64)).astype(np.float32)
    for operand in (None, 0, 0.0):
        nisa.tensor_scalar(out, t, getattr(nl, name), operand)
        np.testing.assert_array_equal(out.numpy(), want)
    with pytest.raises(ConstraintError, match="unary"):
        nisa.tensor_scalar(out, t, getattr(nl, name), 1.0)


def test_rsqrt_runs_on_gpsimd_or_scalar(run):
    x = np.array([[4.0, 16.0, 0.25, 1.0]] * 128, np.float32)
    t = sbuf_tile(run, x)
    out = nl.ndarray(x.shape, nl.float32)
    ins = nisa.tensor_scalar(out, t, nl.rsqrt, 0.0, engine=nisa.engine.gpsimd)
    assert ins.event.engine == "gpsimd"
    np.testing.assert_array_equal(out.numpy(), 1 / np.sqrt(x))
    ins = nisa.tensor_scalar(out, t, nl.rsqrt, None)
    assert ins.event.engine in ("gpsimd", "scalar")
    with pytest.raises(ConstraintError, match="Vector engine has no rsqrt"):
        nisa.tensor_scalar(out, t, nl.rsqrt, None, engine=nisa.engine.vector)


def test_arithmetic_casts_to_dst_dtype_rne_and_saturates(run):
    x = np.array([[0.5, 1.5, 2.5, -0.5, 126.6, 300.0, -1000.0, np.nan]] * 128, np.float32)
    t = sbuf_tile(run, x)
    out = nl.ndarray(x.shape, nl.int8)
    nisa.tensor_scalar(out, t, nl.add, 0.0)
    np.testing.assert_array_equal(out.numpy()[0], [0, 2, 2, 0, 127, 127, -128, 0])
    ob = nl.ndarray((128, 4), nl.bfloat16)
    y = np.array([[1 + 2 ** -8, 1 + 3 * 2 ** -8, 3.0, 1e-3]] * 128, np.float32)
    nisa.tensor_scalar(ob, sbuf_tile(run, y), nl.multiply, 1.0)
    assert ob.numpy().dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(ob.numpy().astype(np.float32), y.astype(ml_dtypes.bfloat16).astype(np.float32))


def test_int_input_computes_in_fp32(run):
    x = np.array([[2 ** 24 + 1, 7, -3, 1000]] * 128, np.int32)
    t = sbuf_tile(run, x)
    out = nl.ndarray(x.shape, nl.int32)
    nisa.tensor_scalar(out, t, nl.add, 0.0)       # 2**24+1 is not a float32: rounds to 2**24
    np.testing.assert_array_equal(out.numpy()[0], [2 ** 24, 7, -3, 1000])


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["add", "subtract", "multiply", "maximum", "minimum"]),
       st.sampled_from(["add", "subtract", "multiply", "maximum", "minimum", None]),
       st.floats(-1e3, 1e3, width=32), st.floats(-1e3, 1e3, width=32), st.booleans(), st.booleans(),
       st.sampled_from(["float32", "bfloat16", "float16"]))
def test_property_two_ops_match_fp32_reference(op0, op1, s0, s1, r0, r1, out_dt):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((32, 40)) * 10).astype(np.float32)
    f = {k: ARITH[k] for k in ("add", "subtract", "multiply", "maximum", "minimum")}
    with run_context("trn2") as run:
        t = sbuf_tile(run, x)
        out = nl.ndarray(x.shape, getattr(nl, out_dt))
        nisa.tensor_scalar(out, t, getattr(nl, op0), s0, reverse0=r0,
                           op1=getattr(nl, op1) if op1 else None, operand1=s1 if op1 else None, reverse1=r1)
        a, b = np.float32(s0), np.float32(s1)
        tmp = (f[op0](a, x) if r0 else f[op0](x, a)).astype(np.float32)
        if op1:
            tmp = (f[op1](b, tmp) if r1 else f[op1](tmp, b)).astype(np.float32)
        want = tmp.astype(out.tv.dtype.np)
        np.testing.assert_array_equal(out.numpy(), want)


# ---------------------------------------------------------------------------------------- the rules

def _tiles(run, dt=np.float32, shape=(128, 64)):
    return sbuf_tile(run, np.ones(shape, dt)), nl.ndarray(shape, dt)


def test_op_classes_must_match(run):
    t, out = _tiles(run, np.int32)
    with pytest.raises(ConstraintError, match="same type"):
        nisa.tensor_scalar(out, t, nl.bitwise_and, 1, op1=nl.add, operand1=1.0)


def test_bitvec_needs_integer_dtypes_and_vector_engine(run):
    t, out = _tiles(run)
    with pytest.raises(ConstraintError, match="integer"):
        nisa.tensor_scalar(out, t, nl.bitwise_and, 1)
    ti, oi = _tiles(run, np.int32)
    for eng in (nisa.engine.scalar, nisa.engine.gpsimd):
        with pytest.raises(ConstraintError, match="Vector engine only"):
            nisa.tensor_scalar(oi, ti, nl.bitwise_or, 1, engine=eng)
    with pytest.raises(ConstraintError, match="integers"):
        nisa.tensor_scalar(oi, ti, nl.bitwise_or, 1.5)
    o16 = nl.ndarray((128, 64), nl.int16)
    with pytest.raises(ConstraintError, match="width"):
        nisa.tensor_scalar(o16, ti, nl.bitwise_or, 1)


def test_op1_none_means_operand1_none(run):
    t, out = _tiles(run)
    with pytest.raises(ConstraintError, match="None"):
        nisa.tensor_scalar(out, t, nl.add, 1.0, operand1=2.0)
    with pytest.raises(ConstraintError, match="needs an operand"):
        nisa.tensor_scalar(out, t, nl.add, 1.0, op1=nl.add)


def test_divide_is_not_an_alu_op(run):
    t, out = _tiles(run)
    with pytest.raises(ConstraintError, match="division is not available"):
        nisa.tensor_scalar(out, t, nl.divide, 2.0)
    with pytest.raises(ConstraintError, match="division"):
        nisa.tensor_scalar(out, t, np.divide, 2.0)
    with pytest.raises(ConstraintError, match="division"):
        nl.divide(t, 2.0)


def test_trn2_scalar_engine_combinations():
    with run_context("trn2") as run:
        t, out = _tiles(run)
        for op0, op1 in ((nl.multiply, nl.add), (nl.multiply, None), (nl.add, None)):
            ins = nisa.tensor_scalar(out, t, op0, 2.0, op1=op1, operand1=1.0 if op1 else None,
                                     engine=nisa.engine.scalar)
            assert ins.event.engine == "scalar"
        for op0, op1 in ((nl.add, nl.multiply), (nl.subtract, None), (nl.multiply, nl.multiply)):
            with pytest.raises(ConstraintError, match="trn2 Scalar engine"):
                nisa.tensor_scalar(out, t, op0, 2.0, op1=op1, operand1=1.0 if op1 else None,
                                   engine=nisa.engine.scalar)


def test_trn1_scalar_engine_has_no_tensor_scalar():
    with run_context("trn1") as run:
        t, out = _tiles(run)
        with pytest.raises(ConstraintError, match="NeuronCore-v3"):
            nisa.tensor_scalar(out, t, nl.multiply, 2.0, engine=nisa.engine.scalar)


def test_gpsimd_only_for_rsqrt_and_never_psum(run):
    t, out = _tiles(run)
    with pytest.raises(ConstraintError, match="only for rsqrt"):
        nisa.tensor_scalar(out, t, nl.add, 1.0, engine=nisa.engine.gpsimd)
    p = nl.ndarray((128, 64), nl.float32, buffer=nl.psum)
    with pytest.raises(ConstraintError, match="PSUM"):
        nisa.tensor_scalar(p, t, nl.rsqrt, None, engine=nisa.engine.gpsimd)


def test_power_has_no_tensor_scalar_engine(run):
    t, out = _tiles(run)
    with pytest.raises(ConstraintError, match="some engine"):
        nisa.tensor_scalar(out, t, nl.power, 2.0)


def test_trn3_only_ops():
    for target, ok in (("trn2", False), ("trn3", True)):
        with run_context(target) as run:
            x = np.array([[-3.0, 2.0]] * 128, np.float32)
            t = sbuf_tile(run, x)
            out = nl.ndarray(x.shape, nl.float32)
            if ok:
                nisa.tensor_scalar(out, t, nl.abs_max, 2.5)
                np.testing.assert_array_equal(out.numpy()[0], [-3.0, 2.5])   # signed value of the larger magnitude
                nisa.tensor_scalar(out, t, nl.relu, None)
                np.testing.assert_array_equal(out.numpy()[0], [0.0, 2.0])
            else:
                with pytest.raises(ConstraintError, match="trn3"):
                    nisa.tensor_scalar(out, t, nl.abs_max, 2.5)


def test_operand_tiles_shape_dtype_and_memory(run):
    t, out = _tiles(run)
    with pytest.raises(ConstraintError, match=r"\(data.shape\[0\], 1\)"):
        nisa.tensor_scalar(out, t, nl.add, sbuf_tile(run, np.ones((128, 2), np.float32)))
    with pytest.raises(ConstraintError, match="float32"):
        nisa.tensor_scalar(out, t, nl.add, sbuf_tile(run, np.ones((128, 1), np.float16)))
    with pytest.raises(ConstraintError, match="scalar constant or a tile"):
        nisa.tensor_scalar(out, t, nl.add, [1.0])


def test_engine_argument_must_be_the_enum(run):
    t, out = _tiles(run)
    with pytest.raises(ConstraintError, match="engine member"):
        nisa.tensor_scalar(out, t, nl.add, 1.0, engine=5)
    with pytest.raises(ConstraintError, match="one of"):
        nisa.tensor_scalar(out, t, nl.add, 1.0, engine=nisa.engine.tensor)


def test_data_and_dst_shapes_and_memories(run):
    t, _ = _tiles(run)
    with pytest.raises(ConstraintError, match="same number of partitions"):
        nisa.tensor_scalar(nl.ndarray((64, 64), nl.float32), t, nl.add, 1.0)
    with pytest.raises(ConstraintError, match="elements per partition"):
        nisa.tensor_scalar(nl.ndarray((128, 32), nl.float32), t, nl.add, 1.0)
    h = nl.ndarray((128, 64), nl.float32, buffer=nl.shared_hbm)
    with pytest.raises(ConstraintError, match="SBUF or PSUM"):
        nisa.tensor_scalar(h, t, nl.add, 1.0)


def test_psum_data_and_dst_allowed_on_vector(run):
    p = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)
    p.write(np.full((128, 512), 3.0, np.float32))
    out = nl.ndarray((128, 512), nl.float32)
    ins = nisa.tensor_scalar(out, p, nl.multiply, 2.0)
    assert ins.event.engine in ("vector", "scalar")
    assert (out.numpy() == 6).all()


def test_tfloat32_dst_rounds_to_ten_mantissa_bits(run):
    x = np.array([[1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -10, 3.0]] * 128, np.float32)
    t = sbuf_tile(run, x)
    out = nl.ndarray(x.shape, nl.tfloat32)
    nisa.tensor_scalar(out, t, nl.multiply, 1.0)
    # ties to even on the 10-bit mantissa grid: 1+2^-11 -> 1, 1+3*2^-11 -> 1+2^-9
    np.testing.assert_array_equal(out.numpy()[0], np.array([1.0, 1 + 2 ** -9, 1 + 2 ** -10, 3.0], np.float32))


F64_OPS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
           "minimum": np.minimum}


def _to_dst(v32, dt):
    """fp32 -> dst dtype as the engines cast: RNE; integers saturate, NaN -> 0."""
    npdt = np.dtype(dt)
    if npdt.kind in "iu":
        info = np.iinfo(npdt)
        v = np.nan_to_num(v32.astype(np.float64), nan=0.0, posinf=info.max, neginf=info.min)
        return np.clip(np.rint(v), info.min, info.max).astype(npdt)
    return v32.astype(npdt)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(F64_OPS)), st.sampled_from(sorted(F64_OPS) + [None]),
       st.sampled_from(["float32", "bfloat16", "int32", "int8", "float8_e4m3"]),
       st.sampled_from(["float32", "bfloat16", "int16", "uint8", "float16"]),
       st.booleans(), st.booleans(), st.booleans(), st.integers(1, 128), st.integers(0, 1000))
def test_property_vector_operands_any_dtypes(op0, op1, in_dt, out_dt, tile0, r0, r1, p, seed):
    rng = np.random.default_rng(seed)
    with run_context("trn2") as run:
        data = nl.ndarray((p, 3, 5), getattr(nl, in_dt))
        raw = rng.standard_normal((p, 3, 5)) * 60
        from npusim.core.dtypes import cast
        data.write(cast(raw, data.tv.dtype))
        x = data.numpy().astype(np.float64)
        s0 = rng.standard_normal((p, 1)).astype(np.float32) * 4
        s1 = np.float32(rng.standard_normal() * 4)
        operand0 = sbuf_tile(run, s0) if tile0 else float(s0[0, 0])
        v0 = s0.reshape(p, 1, 1).astype(np.float64) if tile0 else np.float64(s0[0, 0])
        out = nl.ndarray((p, 15), getattr(nl, out_dt))             # same elements, other shape
        nisa.tensor_scalar(out, data, getattr(nl, op0), operand0, reverse0=r0,
                           op1=getattr(nl, op1) if op1 else None, operand1=float(s1) if op1 else None,
                           reverse1=r1)
        f0 = F64_OPS[op0]
        t = (f0(v0, x) if r0 else f0(x, v0)).astype(np.float32)
        if op1:
            f1 = F64_OPS[op1]
            t64 = t.astype(np.float64)
            t = (f1(np.float64(s1), t64) if r1 else f1(t64, np.float64(s1))).astype(np.float32)
        want = _to_dst(t, out.tv.dtype.np).reshape(p, 15)
        np.testing.assert_array_equal(out.numpy(), want)


def test_validation_cache_does_not_hide_a_rule():
    """A repeat of a passing geometry skips the geometry rules; anything that differs still raises."""
    import npusim.nki.isa as nisa_
    import npusim.nki.language as nl_
    from npusim.core.errors import ConstraintError as CE
    from npusim.nki import run_context as rc
    with rc("trn2"):
        x, y = nl_.ndarray((128, 8), nl_.float32), nl_.ndarray((128, 8), nl_.float32)
        x.write(np.full((128, 8), 3.0, np.float32))
        for _ in range(2):
            nisa_.tensor_scalar(y, x, nl_.multiply, 2.0, op1=nl_.add, operand1=1.0, engine=nisa_.engine.vector)
            assert (y.numpy() == 7.0).all()
        with pytest.raises(CE, match="raw ints"):          # 5 == engine.vector, but raw ints are rejected
            nisa_.tensor_scalar(y, x, nl_.multiply, 2.0, op1=nl_.add, operand1=1.0, engine=5)
        nisa_.tensor_scalar(y, x, nl_.abs, None)
        with pytest.raises(CE, match="None or 0"):          # same ops, a different constant
            nisa_.tensor_scalar(y, x, nl_.abs, 1.0)
        z = nl_.ndarray((128, 4), nl_.float32)
        with pytest.raises(CE, match="same number of elements"):
            nisa_.tensor_scalar(z, x, nl_.multiply, 2.0, op1=nl_.add, operand1=1.0)
        w = nl_.ndarray((128, 8), nl_.float32)[16:48]       # a view: its own start-partition check
        with pytest.raises(CE, match="partition"):
            nisa_.tensor_scalar(w, x[0:32], nl_.multiply, 2.0)
