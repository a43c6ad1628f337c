"""npusim.ascendc under the fuzzer: a bounded seeded run finds no defect (no out-of-footprint write among
them); every export is drawn; the issue-17 cases end in a ConstraintError naming the parameter; two
launches of one kernel give the same values and the same trace."""
import inspect
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import ascendc as asc
from npusim.ascendc.demo import _add_kernel
from npusim.core.errors import ConstraintError
from npusim.fuzz import ascendc as fuzz_asc
from npusim.fuzz.harness import DEFECTS, Tally, execute


@pytest.fixture
def core():
    with asc.core_context("Ascend910B1") as ctx:
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.InitBuffer(buf, 64 * 1024)

        class Core:
            context = ctx

            @staticmethod
            def t(dtype, n, off):
                return buf.GetWithOffset(dtype, n, off)
        yield Core


def test_bounded_campaign_has_no_defect():
    rng = np.random.default_rng(17)
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(600):
            trial = fuzz_asc.draw(rng)
            tally.add(trial, execute(trial, 10.0, twice=i % 10 == 0))
    assert tally.defects == 0, tally.examples
    assert tally.kinds.get("oob_write", 0) == 0
    assert tally.kinds.get("ok", 0) > 100 and tally.kinds.get("rejected", 0) > 100


def test_every_export_is_fuzzed():
    for name in dir(asc):
        obj = getattr(asc, name)
        if name.startswith("_") or inspect.isclass(obj) or inspect.ismodule(obj) or not callable(obj):
            continue
        assert name in fuzz_asc.APIS, name


def _rejects(fn, param):
    with pytest.raises(ConstraintError) as e:
        fn()
    assert e.value.param in ((param,) if isinstance(param, str) else param), str(e.value)


BAD = [None, float("nan"), float("inf"), True, 1.5, 2 ** 70]


@pytest.mark.parametrize("bad", BAD)
def test_repeat_params_masks_offsets_counts(core, bad):
    s0, s1, d = core.t(asc.half, 128, 0), core.t(asc.half, 128, 256), core.t(asc.half, 128, 512)
    s0.load(np.ones(128)), s1.load(np.ones(128))
    _rejects(lambda: asc.BinaryRepeatParams(1, 1, 1, bad, 8, 8), "dstRepStride")
    _rejects(lambda: asc.UnaryRepeatParams(bad), "dstBlkStride")
    _rejects(lambda: asc.DataCopyParams(bad), "blockCount")
    _rejects(lambda: asc.Add(d, s0, s1, bad, 1, asc.BinaryRepeatParams()), "mask")
    _rejects(lambda: asc.Add(d, s0, s1, [bad, 0], 1, asc.BinaryRepeatParams()), "mask")
    _rejects(lambda: asc.Add(d, s0, s1, 128, bad, asc.BinaryRepeatParams()), "repeatTime")
    _rejects(lambda: asc.Add(d, s0, s1, bad), "count")
    _rejects(lambda: s0[bad], "offset")
    _rejects(lambda: s0.GetValue(bad), ("index", "LocalTensor"))
    _rejects(lambda: asc.SetFlag(asc.HardEvent.V_MTE3, bad), "eventID")


@pytest.mark.parametrize("bad", [None, "s", [1], True, 2 ** 1100])
def test_scalars_of_type_t(core, bad):
    s, d = core.t(asc.half, 128, 0).load(np.ones(128)), core.t(asc.half, 128, 256)
    _rejects(lambda: asc.Adds(d, s, bad, 128), "scalarValue")
    _rejects(lambda: asc.Duplicate(d, bad, 128), "scalarValue")
    _rejects(lambda: s.SetValue(0, bad), "value")


def test_nan_and_inf_scalars(core):
    si, di = core.t(asc.int16_t, 128, 0).load(np.ones(128, np.int16)), core.t(asc.int16_t, 128, 256)
    for v in (float("nan"), float("inf")):               # UB in C++: refused for integer types
        _rejects(lambda: asc.Adds(di, si, v, 128), "scalarValue")
        _rejects(lambda: asc.Duplicate(di, v, 128), "scalarValue")
    sf, df = core.t(asc.half, 128, 512).load(np.ones(128)), core.t(asc.half, 128, 768)
    asc.Adds(df, sf, float("inf"), 128)                   # values of a float type: allowed
    assert np.isinf(df.numpy()).all()
    asc.Duplicate(df, float("nan"), 128)
    assert np.isnan(df.numpy()).all()


def test_level0_compare_with_all_zero_mask_is_a_nop(core):
    s0, s1 = core.t(asc.half, 128, 0).load(np.ones(128)), core.t(asc.half, 128, 256).load(np.zeros(128))
    dst = core.t(asc.uint8_t, 32, 512).load(np.full(32, 0xA5))
    n = len(core.context.timeline.trace.events)
    asc.Compare(dst, s0, s1, asc.CMPMODE.GT, [0, 0], 1, asc.BinaryRepeatParams())
    np.testing.assert_array_equal(dst.numpy(), np.full(32, 0xA5, np.uint8))       # nothing written
    ev = core.context.timeline.trace.events[n:]
    assert [e.name for e in ev] == ["Compare"] and ev[0].cycles == 0
    asc.Compare(s0, s1, asc.CMPMODE.GT, [0, 0], asc.BinaryRepeatParams())          # register form too


@pytest.mark.parametrize("bad", [None, 99, 1.5, "VECIN"])
def test_positions_types_and_launch_arrays(bad):
    _rejects(lambda: asc.TQue(bad, 1), "position")
    _rejects(lambda: asc.TBuf(bad), "position")
    with asc.core_context("Ascend910B1"):
        g = asc.GlobalTensor(asc.half)
        _rejects(lambda: asc.GlobalTensor(None), "T")
        _rejects(lambda: asc.SetVectorMask(None, 8), "T")
    _rejects(lambda: asc.launch(lambda x: None, 1, np.array([None, 1])), "arg0")
    _rejects(lambda: asc.launch(None, 1), "kernel")


def test_bool_argument_never_hits_the_call_cache(core):
    s0, s1, d = core.t(asc.half, 128, 0), core.t(asc.half, 128, 256), core.t(asc.half, 128, 512)
    s0.load(np.ones(128)), s1.load(np.ones(128))
    asc.Add(d, s0, s1, 128)
    _rejects(lambda: asc.Add(d, s0, s1, True), "count")


def _launch():
    rng = np.random.default_rng(5)
    x = rng.standard_normal(2048 * 4).astype(np.float16)
    y = rng.standard_normal(2048 * 4).astype(np.float16)
    z = np.zeros_like(x)
    res = asc.launch(_add_kernel, 4, x, y, z, soc="Ascend910B1")
    events = [(e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.nbytes, e.elements, e.source,
               repr(e.args)) for e in res.trace.events]
    return z, events


def test_two_launches_same_values_and_trace():
    z1, t1 = _launch()
    with asc.core_context("Ascend310B1") as ctx:          # process state moves on in between
        asc.TPipe()
    z2, t2 = _launch()
    np.testing.assert_array_equal(z1.view(np.uint16), z2.view(np.uint16))
    assert t1 == t2 and len(t1) > 10


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 2 ** 32 - 1))
def test_any_seed_draws_a_trial_without_defect(seed):
    """Hypothesis picks the seeds (and shrinks a failing one): each drawn trial, run twice, is clean."""
    trial = fuzz_asc.draw(np.random.default_rng(seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = execute(trial, 10.0, twice=True)
    assert out.kind not in DEFECTS, (trial.api, trial.args, out.detail)


def test_newer_apis_are_drawn_with_their_real_arity():
    """Fixed-signature functions are drawn with a positional count their signature accepts (a wrong count
    is Python's TypeError naming the function, as a C++ compile error would be); *args APIs refuse a
    wrong count with a ConstraintError naming the API and the documented form."""
    import inspect as _inspect
    rng = np.random.default_rng(3)
    for api in fuzz_asc.GENERIC:
        if api in fuzz_asc.HOST:
            continue
        sig = _inspect.signature(getattr(asc, api))
        specs = [("half", 256)] * 4 + [("uint8_t", 32)]
        for _ in range(20):
            args, _outs = fuzz_asc._generic(rng, api, specs, fuzz_asc.Ref("ub", 0), "half", 256, 128)
            sig.bind(*args)                       # raises TypeError on a wrong arity


def test_wrong_arity_gives_a_clear_error(core):
    a, b = core.t(asc.half, 256, 0), core.t(asc.half, 256, 1024)
    with pytest.raises(TypeError, match="BlockReduceMin"):
        asc.BlockReduceMin(a, b, 1, 128, 1, 1, 8, 0, 0)
    with pytest.raises(ConstraintError) as e:
        asc.Tanh(a, b, 1, 2, 3, 4)
    assert e.value.param == "arguments" and "Tanh(dstTensor, srcTensor" in str(e.value)
    with pytest.raises(ConstraintError) as e:
        asc.SoftMax(a)
    assert e.value.param == "arguments"


@pytest.mark.parametrize("call,param", [
    (lambda: asc.GetSoftMaxMaxTmpSize(None, 2), "srcShape"),
    (lambda: asc.GetSoftMaxMaxTmpSize((8, 16), 0), "dataTypeSize"),
    (lambda: asc.GetLayerNormMinTmpSize((8, 16), 2), "srcShape"),
    (lambda: asc.GetSoftMaxMinTmpSize((8, 16), float("nan")), "dataTypeSize"),
    (lambda: asc.TILING_DATA_FIELD_DEF("nope", "a"), "dtype"),
    (lambda: asc.TILING_DATA_FIELD_DEF_ARR(asc.uint32_t, None, "a"), "count"),
    (lambda: asc.BEGIN_TILING_DATA_DEF("T", 3), "fields"),
    (lambda: asc.BEGIN_TILING_DATA_DEF(None), "class_name"),
    (lambda: asc.GetSelectWithBytesMaskMinTmpSize(None, 1, False), "n_src"),
    (lambda: asc.printf("%d", "x"), "args"),
    (lambda: asc.load_cpp("/nonexistent/kernel.cpp"), "path"),
    (lambda: asc.load_cpp(None), "path"),
])
def test_host_helpers_refuse_malformed_arguments(call, param):
    _rejects(call, param)
