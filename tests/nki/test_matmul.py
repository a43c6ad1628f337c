"""nc_matmul, nc_transpose, nl.matmul, nl.transpose: values against float64 numpy, PSUM accumulation,
every documented limit, and the cost formula."""
import re

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError, UnsupportedError
from npusim.nki import run_context

BF16 = ml_dtypes.bfloat16


def tile(values, dtype=None, buffer=None):
    values = np.asarray(values)
    t = nl.ndarray(values.shape, dtype or values.dtype, buffer=buffer or nl.sbuf)
    t.write(values.astype(t.tv.dtype.np))
    return t


def rand(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# ------------------------------------------------------------------------------------------ values

@settings(max_examples=15, deadline=None)
@given(k=st.integers(1, 128), m=st.integers(1, 128), n=st.integers(1, 512), seed=st.integers(0, 99))
def test_matmul_fp32_matches_float64_reference(k, m, n, seed):
    a, b = rand((k, m), seed), rand((k, n), seed + 1)
    with run_context("trn2"):
        dst = nl.ndarray((m, n), nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst, tile(a), tile(b))
        got = dst.numpy()
    want = a.astype(np.float64).T @ b.astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.sqrt(k))


def test_matmul_bf16_products_are_exact_in_fp32(run):
    # small integers in bf16: every product and partial sum is exact in fp32
    a = np.random.default_rng(1).integers(-8, 8, (128, 64)).astype(BF16)
    b = np.random.default_rng(2).integers(-8, 8, (128, 512)).astype(BF16)
    dst = nl.ndarray((64, 512), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst, tile(a), tile(b))
    np.testing.assert_array_equal(dst.numpy(), a.astype(np.float64).T @ b.astype(np.float64))


def test_matmul_fp8_inputs(run):
    a = np.array([[0.5, 1.5], [2.0, -3.0]], ml_dtypes.float8_e4m3)
    b = np.array([[1.0, 2.0, 4.0], [0.25, -1.0, 8.0]], ml_dtypes.float8_e4m3)
    dst = nl.ndarray((2, 3), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst, tile(a), tile(b))
    np.testing.assert_array_equal(dst.numpy(), a.astype(np.float64).T @ b.astype(np.float64))


def test_psum_accumulates_over_k_then_a_new_tile_starts_over(run):
    a, b = rand((256, 128)), rand((256, 512), 3)
    acc = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)
    for k in range(2):
        nisa.nc_matmul(acc, tile(a[k * 128:(k + 1) * 128]), tile(b[k * 128:(k + 1) * 128]))
    np.testing.assert_allclose(acc.numpy(), a.astype(np.float64).T @ b, rtol=1e-5, atol=1e-4)
    del acc
    fresh = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)    # likely the same bank: must overwrite
    nisa.nc_matmul(fresh, tile(a[:128]), tile(b[:128]))
    np.testing.assert_allclose(fresh.numpy(), a[:128].astype(np.float64).T @ b[:128], rtol=1e-5, atol=1e-4)


def test_accumulate_false_overwrites_and_true_adds(run):
    a, b = np.eye(4, dtype=np.float32), np.full((4, 8), 2.0, np.float32)
    dst = nl.ndarray((4, 8), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst, tile(a), tile(b))
    nisa.nc_matmul(dst, tile(a), tile(b), accumulate=False)
    np.testing.assert_array_equal(dst.numpy(), 2.0)
    nisa.nc_matmul(dst, tile(a), tile(b), accumulate=True)
    np.testing.assert_array_equal(dst.numpy(), 4.0)


def test_first_write_is_per_location(run):
    # the left half was written once: the full-tile matmul accumulates there and overwrites the right
    a, b = np.eye(4, dtype=np.float32), np.ones((4, 8), np.float32)
    dst = nl.ndarray((4, 8), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst[:, 0:4], tile(a), tile(b[:, :4]))
    nisa.nc_matmul(dst, tile(a), tile(b))
    np.testing.assert_array_equal(dst.numpy(), np.concatenate([np.full((4, 4), 2.0), np.ones((4, 4))], 1))


def test_trn3_bf16_psum_result_and_wide_moving():
    with run_context("trn3"):
        a, b = np.eye(8, dtype=np.float32), rand((8, 2048))
        dst = nl.ndarray((8, 2048), nl.float32, buffer=nl.psum)     # 8 KiB: four banks, trn3 only
        nisa.nc_matmul(dst, tile(a), tile(b))
        np.testing.assert_array_equal(dst.numpy(), b)
        d16 = nl.ndarray((8, 64), nl.bfloat16, buffer=nl.psum)
        nisa.nc_matmul(d16, tile(a), tile(b[:, :64]))
        nisa.nc_matmul(d16, tile(a), tile(b[:, :64]))
        np.testing.assert_array_equal(d16.numpy(), (b[:, :64].astype(BF16).astype(np.float32) + b[:, :64])
                                      .astype(BF16))


# ------------------------------------------------------------------------------------------- limits

def _mm(dst_shape, s_shape, m_shape, s_dt=np.float32, m_dt=np.float32, d_dt=np.float32,
        s_buf=None, m_buf=None, d_buf=None, **kw):
    s = tile(np.zeros(s_shape), s_dt, s_buf)
    m = tile(np.zeros(m_shape), m_dt, m_buf)
    d = nl.ndarray(dst_shape, d_dt, buffer=d_buf or nl.psum)
    return nisa.nc_matmul(d, s, m, **kw)


@pytest.mark.parametrize("case, rule", [
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(8, 8)), "same partition size"),
    (dict(dst_shape=(128, 8), s_shape=(16, 129), m_shape=(16, 8)), "M <= 128"),
    (dict(dst_shape=(4, 513), s_shape=(16, 4), m_shape=(16, 513)), "N <= 512"),
    (dict(dst_shape=(4, 9), s_shape=(16, 4), m_shape=(16, 8)), "dst is [M, N]"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), d_buf=nl.sbuf), "writes its result to PSUM"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), s_buf=nl.psum), "reads its inputs from SBUF"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), m_buf=nl.psum), "reads its inputs from SBUF"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), d_dt=BF16), "bfloat16 results exist on trn3"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), m_dt=BF16), "float32/tfloat32 the other"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), s_dt=BF16), "float32/tfloat32 the other"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), s_dt=ml_dtypes.float8_e4m3,
          m_dt=ml_dtypes.float8_e5m2), "fp8 formats"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), s_dt=ml_dtypes.float8_e4m3fn,
          m_dt=ml_dtypes.float8_e4m3), "fp8 formats"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), s_dt=np.int8, m_dt=np.int8), "input dtype"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), accumulate=1), "accumulate"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), perf_mode="double_row"), "matmul_perf_mode"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), perf_mode=nisa.matmul_perf_mode.double_row),
     "both inputs fp8"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), tile_position=(0, 0)), "both given"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), tile_position=(0, 32), tile_size=(64, 64)),
     "multiple of the tile size"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), tile_position=(0, 0), tile_size=(48, 64)),
     "row tile size in"),
    (dict(dst_shape=(4, 8), s_shape=(80, 4), m_shape=(80, 8), tile_position=(0, 0), tile_size=(64, 64)),
     "K (stationary partitions) <= the row tile size"),
    (dict(dst_shape=(4, 8), s_shape=(16, 4), m_shape=(16, 8), is_stationary_onezero=True, s_dt=np.float32),
     None),
])
def test_matmul_limits_raise(run, case, rule):
    if rule is None:      # is_stationary_onezero with all-zero stationary is fine
        _mm(**case)
        return
    with pytest.raises(ConstraintError, match=re.escape(rule)):
        _mm(**case)


def test_onezero_flag_checks_values(run):
    with pytest.raises(ConstraintError, match="only 0 and 1"):
        s, m = tile(np.eye(2, dtype=np.float32)), tile(np.full((2, 2), 3.0, np.float32))
        nisa.nc_matmul(nl.ndarray((2, 2), nl.float32, buffer=nl.psum), s, m, is_moving_onezero=True)


def test_fp32_dst_across_banks_only_on_trn3(run):
    with pytest.raises(ConstraintError, match="N <= 512"):
        _mm((4, 1024), (16, 4), (16, 1024))
    with run_context("trn3"):
        _mm((4, 1024), (16, 4), (16, 1024))
        _mm((4, 8192), (16, 4), (16, 8192), d_dt=BF16)          # bf16: the whole 16 KiB PSUM
        with pytest.raises(ConstraintError, match="N <= 4096"):
            _mm((4, 8), (16, 4), (16, 4097))


def test_32_row_tiles_and_double_row_need_trn2():
    with run_context("trn1"):
        with pytest.raises(ConstraintError, match="row tile size in"):
            _mm((4, 8), (16, 4), (16, 8), tile_position=(32, 0), tile_size=(32, 32))
        with pytest.raises(ConstraintError, match="NeuronCore-v3"):
            _mm((4, 8), (16, 4), (16, 8), s_dt=ml_dtypes.float8_e4m3, m_dt=ml_dtypes.float8_e4m3,
                perf_mode=nisa.matmul_perf_mode.double_row)
    with run_context("trn2"):
        _mm((4, 8), (16, 4), (16, 8), tile_position=(32, 96), tile_size=(32, 32))
        with pytest.raises(ConstraintError, match="column tiling"):
            _mm((4, 8), (16, 4), (16, 8), s_dt=ml_dtypes.float8_e4m3, m_dt=ml_dtypes.float8_e4m3,
                perf_mode=nisa.matmul_perf_mode.double_row, tile_position=(0, 0), tile_size=(128, 64))


def test_is_transpose_mode_is_a_bit_accurate_transpose_from_trn2(run):
    x = np.random.default_rng(9).standard_normal((16, 4)).astype(ml_dtypes.bfloat16)
    x[3, 1] = np.inf
    s = nl.ndarray((16, 4), nl.bfloat16)
    s.write(x)
    eye = nl.ndarray((16, 16), nl.bfloat16)
    eye.write(np.eye(16, dtype=ml_dtypes.bfloat16))
    d = nl.ndarray((4, 16), nl.bfloat16, buffer=nl.psum)
    ev = nisa.nc_matmul(dst=d, stationary=s, moving=eye, is_transpose=True).event
    np.testing.assert_array_equal(d.numpy(), x.T)                   # the Inf does not spread on trn2
    assert ev.engine == "tensor" and ev.cycles == 64                  # a MultiplyMoving of N = K = 16
    with pytest.raises(ConstraintError, match="identity"):
        nisa.nc_matmul(dst=d, stationary=s, moving=s, is_transpose=True)
    two = nl.ndarray((16, 16), nl.bfloat16)
    two.write(2 * np.eye(16, dtype=ml_dtypes.bfloat16))
    with pytest.raises(ConstraintError, match="identity"):
        nisa.nc_matmul(dst=d, stationary=s, moving=two, is_transpose=True)
    with pytest.raises(ConstraintError, match="stationary transposed"):
        nisa.nc_matmul(dst=nl.ndarray((16, 4), nl.bfloat16, buffer=nl.psum), stationary=s, moving=eye,
                       is_transpose=True)


def test_is_transpose_on_trn1_is_the_identity_matmul():
    with run_context("trn1"):
        x = np.ones((8, 2), np.float32)
        x[2, 0] = np.nan
        s = nl.ndarray((8, 2), nl.float32)
        s.write(x)
        eye = nl.ndarray((8, 8), nl.float32)
        eye.write(np.eye(8, dtype=np.float32))
        d = nl.ndarray((2, 8), nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=d, stationary=s, moving=eye, is_transpose=True)
        assert np.isnan(d.numpy()[0]).all() and (d.numpy()[1] == 1).all()     # NaN * 0 spreads along row 0


def test_tf32_pairs_with_fp32(run):
    ins = _mm((4, 8), (16, 4), (16, 8), s_dt=nl.tfloat32)
    assert ins.event.cycles == 4 * 64     # stationary tf32 with moving fp32: the fp32 x4 path


# --------------------------------------------------------------------------------------------- cost

@pytest.mark.parametrize("n, dt, cycles", [(512, np.float32, 2048), (512, BF16, 512), (32, BF16, 64),
                                           (32, np.float32, 256), (100, np.float16, 100)])
def test_matmul_cycles_follow_formula(run, n, dt, cycles):
    ins = _mm((128, n), (128, 128), (128, n), s_dt=dt, m_dt=dt)
    assert ins.event.cycles == cycles and ins.event.engine == "tensor"


def test_double_row_halves_fp8_cost(run):
    f8 = ml_dtypes.float8_e4m3
    ins = _mm((128, 512), (128, 128), (128, 512), s_dt=f8, m_dt=f8, perf_mode=nisa.matmul_perf_mode.double_row)
    assert ins.event.cycles == 256


# ---------------------------------------------------------------------------------------- transpose

@pytest.mark.parametrize("p, f", [(128, 128), (3, 100), (64, 1)])
def test_tensor_transpose_values_and_cost(run, p, f):
    x = rand((p, f), 5)
    dst = nl.ndarray((f, p), nl.float32, buffer=nl.psum)
    ins = nisa.nc_transpose(dst, tile(x))
    assert ins.event.engine == "tensor" and ins.event.cycles == max(p, min(64, f))
    np.testing.assert_array_equal(dst.numpy(), x.T)


def test_vector_transpose_32x32_in_sbuf(run):
    x = np.arange(32 * 20, dtype=np.int32).reshape(32, 20)
    dst = nl.ndarray((20, 32), nl.int32)
    ins = nisa.nc_transpose(dst, tile(x))
    assert ins.event.engine == "vector" and ins.event.cycles == 64
    np.testing.assert_array_equal(dst.numpy(), x.T)


def test_transpose_limits(run):
    with pytest.raises(ConstraintError, match=r"at most \[32, 32\]"):
        nisa.nc_transpose(nl.ndarray((40, 8), nl.float32), tile(np.zeros((8, 40), np.float32)))
    with pytest.raises(ConstraintError, match="dst has data's dtype"):
        nisa.nc_transpose(nl.ndarray((8, 8), nl.bfloat16, buffer=nl.psum), tile(np.zeros((8, 8), np.float32)))
    with pytest.raises(ConstraintError, match="transposed"):
        nisa.nc_transpose(nl.ndarray((8, 9), nl.float32, buffer=nl.psum), tile(np.zeros((8, 8), np.float32)))
    with pytest.raises(ConstraintError, match="reads SBUF"):
        src = tile(np.zeros((64, 64), np.float32), buffer=nl.psum)
        nisa.nc_transpose(nl.ndarray((64, 64), nl.float32, buffer=nl.psum), src, engine=nisa.engine.tensor)


def test_trn1_tensor_transpose_spreads_nan_like_the_identity_matmul():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    x[1, 2] = np.inf
    for target, nan_rows in (("trn1", True), ("trn2", False)):
        with run_context(target):
            dst = nl.ndarray((4, 3), nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst, tile(x), engine=nisa.engine.tensor)
            got = dst.numpy()
        want = x.T.copy()
        if nan_rows:       # Inf * 0 poisons output row 2 except the element that multiplies by 1
            want[2, [0, 2]] = np.nan
        np.testing.assert_array_equal(got, want)


# -------------------------------------------------------------------------------------- nl level

def test_nl_matmul_and_transpose(run):
    x, y = rand((64, 128), 7), rand((128, 256), 8)
    out = nl.matmul(tile(x), tile(y))
    assert out.buffer is nl.psum and out.shape == (64, 256)
    np.testing.assert_allclose(out.numpy(), x.astype(np.float64) @ y, rtol=1e-5, atol=1e-4)
    xt = rand((128, 64), 9)
    out2 = nl.matmul(tile(xt), tile(y), transpose_x=True)
    np.testing.assert_allclose(out2.numpy(), xt.astype(np.float64).T @ y, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(nl.transpose(tile(x)).numpy(), x.T)
    small = rand((16, 8), 10)
    np.testing.assert_array_equal(nl.transpose(tile(small)).numpy(), small.T)


def test_tiled_matmul_example_cycles_equal_the_formula_by_hand():
    import os
    import runpy
    import npusim.nki as nki
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "nki", "matmul_tiled.py")
    mod = runpy.run_path(path, run_name="t")
    m, k, n = 256, 384, 512
    a, b = rand((k, m)), rand((k, n), 1)
    c = nki.simulate(mod["matmul_tiled"], target="trn2")(a, b)
    np.testing.assert_allclose(c, a.astype(np.float64).T @ b, rtol=1e-4, atol=1e-4)
    run = nki.last_run()
    mm = [e for e in run.trace.events if e.name == "nisa.nc_matmul"]
    assert len(mm) == (m // 128) * (k // 128) * (n // 512)
    assert sum(e.cycles for e in mm) == len(mm) * 512 * 4        # max(N_moving, 64) x 4 for fp32
    tensor = run.timeline.engines["tensor"]
    assert tensor.busy_ns == pytest.approx(len(mm) * 2048 / 2.4e9 * 1e9)   # trn2 TensorE at 2.4 GHz


def test_matmul_dst_must_sit_inside_one_psum_bank_before_trn3(run):
    a, b = tile(np.eye(4, dtype=np.float32)), tile(np.ones((4, 512), np.float32))
    big = nl.ndarray((4, 1024), nl.float32, buffer=nl.psum)          # two banks
    with pytest.raises(ConstraintError, match="inside one 2048-byte bank"):
        nisa.nc_matmul(big[:, 256:768], a, b)
    nisa.nc_matmul(big[:, 512:1024], a, b)                            # the second bank: fine
    np.testing.assert_array_equal(big[:, 512:1024].numpy(), np.eye(4) @ np.ones((4, 512)))


def test_accumulating_onto_memset_psum_warns_before_trn3():
    import warnings
    a, b = np.eye(4, dtype=np.float32), np.ones((4, 8), np.float32)
    with run_context("trn2"):
        dst = nl.ndarray((4, 8), nl.float32, buffer=nl.psum)
        nisa.memset(dst, 1.0)
        with pytest.warns(nisa.PsumAccumulateWarning, match="undefined on NeuronCore-v2/v3"):
            nisa.nc_matmul(dst, tile(a), tile(b))
        np.testing.assert_array_equal(dst.numpy(), 2.0)          # npusim adds anyway
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            nisa.nc_matmul(dst, tile(a), tile(b))                # onto matmul results: defined
            fresh = nl.ndarray((4, 8), nl.float32, buffer=nl.psum)
            nisa.nc_matmul(fresh, tile(a), tile(b))
            nisa.nc_matmul(fresh, tile(a), tile(b))
    with run_context("trn3"):
        dst = nl.ndarray((4, 8), nl.float32, buffer=nl.psum)
        nisa.memset(dst, 1.0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            nisa.nc_matmul(dst, tile(a), tile(b))


def test_accumulate_true_onto_never_written_psum_reads_poison(run):
    from npusim.core.errors import UninitializedReadWarning
    dst = nl.ndarray((4, 8), nl.float32, buffer=nl.psum)
    with pytest.warns(UninitializedReadWarning):
        nisa.nc_matmul(dst, tile(np.eye(4, dtype=np.float32)), tile(np.ones((4, 8), np.float32)), accumulate=True)
    assert np.isnan(dst.numpy()).all()


@settings(max_examples=10, deadline=None)
@given(splits=st.lists(st.integers(1, 64), min_size=1, max_size=5), m=st.integers(1, 64),
       n=st.integers(1, 128), seed=st.integers(0, 50))
def test_psum_accumulation_over_any_k_split_equals_one_big_contraction(splits, m, n, seed):
    k = sum(splits)
    a = np.random.default_rng(seed).integers(-4, 5, (k, m)).astype(BF16)     # exact in fp32
    b = np.random.default_rng(seed + 1).integers(-4, 5, (k, n)).astype(BF16)
    with run_context("trn2"):
        acc = nl.ndarray((m, n), nl.float32, buffer=nl.psum)
        lo = 0
        for s in splits:
            nisa.nc_matmul(acc, tile(a[lo:lo + s]), tile(b[lo:lo + s]))
            lo += s
        np.testing.assert_array_equal(acc.numpy(), a.astype(np.float64).T @ b.astype(np.float64))


def test_load_stationary_runs_in_the_background(run):
    f = 1e9 / 2.4e9                                               # ns per trn2 TensorE cycle
    s1, s2 = tile(np.ones((128, 128), BF16)), tile(np.ones((128, 128), BF16))
    mv = tile(np.ones((128, 512), BF16))
    d1 = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)
    d2 = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)
    e1 = nisa.nc_matmul(d1, s1, mv).event
    e2 = nisa.nc_matmul(d2, s2, mv).event
    assert e1.start_ns == pytest.approx(32 * f)                   # idle engine: LS (128/4 cycles) exposed
    assert e2.start_ns == pytest.approx(e1.end_ns)                # next LS hidden behind the 512-cycle MM
    assert e1.cycles == e2.cycles == 512 and e1.args["load_stationary_cycles"] == 32
