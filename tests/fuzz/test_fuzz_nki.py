"""npusim.nki under the fuzzer: a bounded seeded run finds no defect; every public function is drawn;
the issue-17 cases each end in a ConstraintError naming the parameter; two runs of one kernel give the
same values and the same trace."""
import inspect
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError, NpuSimError
from npusim.fuzz import nki as fuzz_nki
from npusim.fuzz.harness import DEFECTS, Tally, execute
from npusim.nki import run_context


@pytest.fixture
def run():
    with run_context("trn2") as r:
        yield r


def test_bounded_campaign_has_no_defect():
    rng = np.random.default_rng(17)
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(300):
            trial = fuzz_nki.draw(rng)
            tally.add(trial, execute(trial, 10.0, twice=i % 10 == 0))
    assert tally.defects == 0, tally.examples
    assert tally.kinds.get("ok", 0) > 50 and tally.kinds.get("rejected", 0) > 50


def test_every_public_function_is_fuzzed():
    drawn = {name for kind, name in fuzz_nki.APIS if kind in ("nisa", "nl")}
    for mod in (nisa, nl):
        for name in dir(mod):
            obj = getattr(mod, name)
            if name.startswith("_") or inspect.isclass(obj) or inspect.ismodule(obj) or not callable(obj):
                continue
            assert name in drawn or name in fuzz_nki.NOT_API, name


def _rejects(fn, param):
    with pytest.raises(ConstraintError) as e:
        fn()
    assert e.value.param == param, str(e.value)
    return e.value


def test_issue_cases(run):
    x8 = nl.ndarray((128, 8), nl.float8_e4m3, buffer=nl.sbuf)
    xb = nl.ndarray((128, 8), nl.bfloat16, buffer=nl.sbuf)
    x8.write(np.ones((128, 8), ml_dtypes.float8_e4m3))
    xb.write(np.full((128, 8), 2, ml_dtypes.bfloat16))
    y = nl.add(x8, xb)                                   # was a numpy DTypePromotionError
    assert y.dtype == nl.bfloat16
    np.testing.assert_array_equal(y.numpy().astype(np.float32), np.full((128, 8), 3, np.float32))
    w = nl.ndarray((128, 8), nl.float32, buffer=nl.sbuf)
    w.write(np.ones((128, 8), np.float32))
    _rejects(lambda: nl.rms_norm(w, w, axis=1, n=0), "n")
    _rejects(lambda: nl.full((128, 8), float("nan"), nl.int32), "fill_value")
    _rejects(lambda: nl.full((128, 8), 2.5, nl.int32), "fill_value")       # no silent truncation
    _rejects(lambda: nl.ndarray((2 ** 40, 4), nl.float32, buffer=nl.sbuf), "shape")
    _rejects(lambda: nl.ndarray((2 ** 40, 4), nl.float32, buffer=nl.hbm), "shape")
    _rejects(lambda: w[1.0], "key")                                          # float indices
    _rejects(lambda: w[0:2.5], "key")
    _rejects(lambda: nl.ds(1.5, 2), "start")
    _rejects(lambda: w[nl.DynSlice(1.5, 2)], "key")
    _rejects(lambda: w[True], "key")
    _rejects(lambda: nl.sum(w, axis=5), "axis")
    _rejects(lambda: nl.sum(w, axis=1.0), "axis")
    _rejects(lambda: nisa.iota(w, [[2 ** 70, 1]]), "pattern")
    _rejects(lambda: list(nl.affine_range(float("nan"))), "args")
    _rejects(lambda: nl.zeros_like(3), "a")


def test_promotion_rule():
    from npusim.core.dtypes import DTYPES as D
    from npusim.nki.language import _promote
    assert _promote(D["float8_e4m3"], D["bfloat16"]) == "bfloat16"
    assert _promote(D["bfloat16"], D["float16"]) == "float32"
    assert _promote(D["int32"], D["bfloat16"]) == "bfloat16"
    assert _promote(D["uint8"], D["int8"]) == "int16"
    assert _promote(D["uint32"], D["int32"]) == "int32"
    assert _promote(D["int8"], D["int16"]) == "int16"


def test_full_keeps_valid_values(run):
    t = nl.full((128, 4), 7, nl.int32)
    np.testing.assert_array_equal(t.numpy(), np.full((128, 4), 7, np.int32))
    f = nl.full((128, 4), float("nan"), nl.float32)             # NaN is a float value: allowed
    assert np.isnan(f.numpy()).all()


def _kernel(a, b):
    out = nl.ndarray(a.shape, nl.float32, buffer=nl.shared_hbm)
    ta, tb = nl.load(a), nl.load(b)
    s = nl.add(ta, tb)
    e = nl.exp(nl.multiply(s, 0.1))
    m = nl.sum(e, axis=1, keepdims=True)
    r = nl.ndarray(a.shape, nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar(r, e, nl.multiply, m)
    nl.store(out, r)
    return out


def _other(a):
    out = nl.ndarray(a.shape, nl.float32, buffer=nl.shared_hbm)
    nl.store(out, nl.negative(nl.load(a)))
    return out


def _events():
    return [(e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.nbytes, e.elements, e.source, repr(e.args))
            for e in nki.last_run().trace.events]


def test_two_runs_same_values_and_trace():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((128, 64)).astype(np.float32), rng.standard_normal((128, 64)).astype(np.float32)
    y1 = nki.simulate(_kernel)(a, b)
    t1 = _events()
    nki.simulate(_other)(a)                                   # process state moves on in between
    y2 = nki.simulate(_kernel)(a, b)
    t2 = _events()
    np.testing.assert_array_equal(y1.view(np.uint32), y2.view(np.uint32))
    assert t1 == t2 and len(t1) > 5


@pytest.mark.parametrize("grid", [float("nan"), 1.5, True, None, 0, 2 ** 40, (2, 2 ** 20)])
def test_launch_grid_is_checked(grid):
    with pytest.raises(ConstraintError) as e:
        nki.jit(_other)[grid](np.ones((4, 4), np.float32))
    assert e.value.param == "grid"


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 2 ** 32 - 1))
def test_any_seed_draws_a_trial_without_defect(seed):
    """Hypothesis picks the seeds (and shrinks a failing one): each drawn trial, run twice, is clean."""
    trial = fuzz_nki.draw(np.random.default_rng(seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = execute(trial, 10.0, twice=True)
    assert out.kind not in DEFECTS, (trial.api, trial.args, out.detail)


def test_every_legacy_function_is_fuzzed():
    import npusim.nki.legacy.isa as lisa
    import npusim.nki.legacy.language as lnl
    for kind, mod in (("lisa", lisa), ("lnl", lnl)):
        drawn = {name for k, name in fuzz_nki.APIS if k == kind}
        for name in dir(mod):
            obj = getattr(mod, name)
            if name.startswith("_") or inspect.isclass(obj) or inspect.ismodule(obj) or not callable(obj):
                continue
            assert name in drawn or name in fuzz_nki.NOT_API or name in fuzz_nki.LEGACY_NOT_API, name


def test_legacy_calls_refuse_what_is_not_a_tile(run):
    import npusim.nki.legacy.isa as lisa
    import npusim.nki.legacy.language as lnl
    with pytest.raises(ConstraintError) as e:
        lisa.tensor_copy(2 ** 40)
    assert e.value.param == "src"
    with pytest.raises(ConstraintError) as e:
        lisa.nc_matmul(False, nl.ndarray((128, 8), nl.float32, buffer=nl.sbuf))
    assert e.value.param == "stationary"
    for call, param in ((lambda: lnl.ones("x", nl.float32), "shape"), (lambda: lnl.arange(5, 1, 0), "step"),
                        (lambda: lnl.zeros_like(1.0), "a"), (lambda: lnl.mean(1.0, axis=1), "x"),
                        (lambda: lnl.store((), 1.0), "dst")):
        with pytest.raises(ConstraintError) as e:
            call()
        assert e.value.param == param


def test_legacy_divide_by_an_array_is_refused(run):
    import npusim.nki.legacy.language as lnl
    x = nl.ndarray((128, 4), nl.float32, buffer=nl.sbuf)
    with pytest.raises(ConstraintError) as e:
        lnl.divide(x, np.zeros((128, 4), np.float32))
    assert e.value.param == "y"


def test_where_scalar_into_an_integer_tile_is_checked(run):
    cond = nl.ndarray((1, 2), nl.int32, buffer=nl.sbuf)
    cond.write(np.array([[1, 0]], np.int32))
    for bad in (float("nan"), 1.5, 2 ** 40):
        with pytest.raises(ConstraintError) as e:
            nl.where(cond, bad, cond)
        assert e.value.param == "x"
    out = nl.where(cond, 7, cond)
    np.testing.assert_array_equal(out.numpy(), [[7, 0]])
