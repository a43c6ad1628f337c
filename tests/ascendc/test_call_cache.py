"""The per-core caches (whole calls by argument key, plans by geometry, views, DataCopy plans) are invisible:
a program run with every cache emptied before each call gives the same memory, the same errors and
warnings, and the same timeline events as the same program run with the caches warm. The cold run also
takes the general read / write path (TensorView.read / write) where the warm run takes the dense fast path."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim
from npusim import ascendc as asc
from npusim.ascendc import datacopy, repeat
from npusim.ascendc.repeat import _plan
from npusim.core.errors import NpuSimError, UninitializedReadError, UninitializedReadWarning


def _forget_caches(ctx) -> None:
    ctx.fast.clear()
    ctx.plans.clear()
    ctx._views.clear()
    ctx.computes.clear()
    for c in getattr(ctx, "copy_plans", {}), :
        c.clear()


def _run(steps, cold: bool, uninitialized: str):
    """Run ``steps`` on a fresh core; -> (UB bytes, UB init map, [outcome per step], events)."""
    outcomes = []
    with npusim.configure(uninitialized=uninitialized), asc.core_context("Ascend910B1") as ctx:
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 8192)
        for step in steps:
            if cold:
                _forget_caches(ctx)
            kind = step[0]
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                try:
                    if kind == "load":
                        _, off, n, v = step
                        buf.GetWithOffset(asc.half, n, off).load(np.full(n, v))
                    elif kind in ("copy_in", "copy_out"):
                        _, ub_off, gm_off, n = step
                        g = asc.GlobalTensor(asc.half)
                        g.SetGlobalBuffer(asc.GM_ADDR(ctx.gm, 0, 0, ctx.gm.size).cast(asc.half) + gm_off, 1024)
                        u = buf.GetWithOffset(asc.half, 256, ub_off)
                        asc.DataCopy(*((u, g) if kind == "copy_in" else (g, u)), n)
                    elif kind == "gm_forget":
                        _, off, n = step
                        ctx.gm.forget(off, n)
                    elif kind == "unary":
                        _, api, d_off, s_off, extra, count = step
                        d = buf.GetWithOffset(asc.half, 256, d_off)
                        s = buf.GetWithOffset(asc.half, 256, s_off)
                        getattr(asc, api)(d, s, *extra, count)
                    elif kind == "barrier":
                        asc.PipeBarrier(asc.PIPE_ALL)
                    elif kind == "forget":
                        _, off, n = step
                        ctx.ub.forget(off, n)
                    else:
                        _, api, d_off, s0_off, s1_off, args, set_mask = step
                        dt = asc.int8_t if api == "AddReluCast" else asc.half
                        d = buf.GetWithOffset(dt, 256, d_off)
                        s0 = buf.GetWithOffset(asc.half, 256, s0_off)
                        s1 = buf.GetWithOffset(asc.half, 256, s1_off)
                        if len(args) == 3:
                            args = (args[0], args[1], asc.BinaryRepeatParams(*args[2]))
                        getattr(asc, api)(d, s0, s1, *args, isSetMask=set_mask)
                    outcomes.append(("ok", [str(x.message) for x in w]))
                except NpuSimError as e:
                    outcomes.append((type(e).__name__, str(e), [str(x.message) for x in w]))
        events = [(e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.nbytes, e.elements, e.args)
                  for e in ctx.timeline.trace.events]
        return (np.concatenate([ctx.ub.data, ctx.gm.data]), np.concatenate([ctx.ub.init, ctx.gm.init]), outcomes,
                events)


def _general_plan(*a):
    """repeat._plan without the dense fast path: operands go through TensorView.read / write."""
    p = _plan(*a)
    p.simple = False
    return p


def _same(steps, uninitialized="poison"):
    warm = _run(steps, cold=False, uninitialized=uninitialized)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(repeat, "_plan", _general_plan)
        mp.setattr(datacopy, "copy_dense", lambda sv, dv, api: dv.write(sv.read(api)))
        cold = _run(steps, cold=True, uninitialized=uninitialized)
    np.testing.assert_array_equal(warm[0], cold[0])
    np.testing.assert_array_equal(warm[1], cold[1])
    assert warm[2] == cold[2]
    assert warm[3] == cold[3]
    return warm


def test_cached_dense_call_reports_bytes_forgotten_since_it_was_planned():
    call = ("call", "AddReluCast", 1024, 0, 512, (128, 1, (1, 1, 1, 4, 8, 8)), True)
    steps = [("load", 0, 256, 1.0), ("load", 512, 256, 0.5), call, call, ("forget", 64, 2), call]
    _, _, outcomes, _ = _same(steps, "error")
    assert outcomes[3] == ("ok", [])
    assert outcomes[5][0] == UninitializedReadError.__name__
    _, _, outcomes, _ = _same(steps, "poison")
    assert outcomes[5][0] == "ok" and any("poison" in m for m in outcomes[5][1])


def test_cached_dense_call_poisons_like_the_uncached_path():
    """The forgotten element reads as NaN: relu sends it to 0; the others give 1 + 0.5 -> 2 (RNE of 1.5)."""
    call = ("call", "AddReluCast", 1024, 0, 512, (128,), True)
    steps = [("load", 0, 256, 1.0), ("load", 512, 256, 0.5), call, ("forget", 0, 2), call]
    ub, init, _, _ = _same(steps, "poison")
    got = ub[1024:1024 + 128].view(np.int8)
    assert got[0] == 0 and (got[1:] == 2).all()
    assert (init[1024:1024 + 128] == 1).all()


def test_cached_dense_call_marks_its_destination_written():
    add = ("call", "Add", 2048, 0, 512, (128,), True)
    use = ("call", "Add", 4096, 2048, 2048, (128,), True)
    steps = [("load", 0, 256, 1.0), ("load", 512, 256, 0.5), add, ("forget", 2048, 256), add, ("barrier",), use]
    _, _, outcomes, _ = _same(steps, "error")
    assert outcomes[-1] == ("ok", [])


def test_copy_in_of_forgotten_gm_bytes_reports_them():
    steps = [("load", 0, 256, 1.0), ("copy_out", 0, 0, 256), ("barrier",), ("gm_forget", 10, 4),
             ("copy_in", 1024, 0, 256)]
    outcomes = _same(steps, "error")[2]
    assert outcomes[-1][0] == UninitializedReadError.__name__
    outcomes = _same(steps, "poison")[2]
    assert outcomes[-1][0] == "ok" and any("poison" in m for m in outcomes[-1][1])


def test_a_changed_mask_register_is_a_different_call():
    masked = ("call", "Add", 2048, 0, 512, (0, 1, (1, 1, 1, 8, 8, 8)), False)
    steps = [("load", 0, 256, 1.0), ("load", 512, 256, 2.0), ("load", 2048, 256, 0.0),
             ("call", "Add", 2048, 0, 512, (64, 1, (1, 1, 1, 8, 8, 8)), True), masked,
             ("call", "Add", 2048, 0, 512, (3, 1, (1, 1, 1, 8, 8, 8)), True), masked]
    ub, _, outcomes, _ = _same(steps)
    assert all(o[0] == "ok" for o in outcomes)


_offsets = st.sampled_from([0, 512, 1024, 1536, 2048, 32, 16])
_call = st.tuples(st.just("call"), st.sampled_from(["Add", "AddReluCast", "Mul"]), _offsets, _offsets, _offsets,
                  st.one_of(st.tuples(st.integers(0, 300)),
                            st.tuples(st.integers(0, 128), st.integers(0, 3),
                                      st.tuples(*[st.integers(0, 2)] * 3, *[st.integers(0, 9)] * 3))),
                  st.booleans())
_step = st.one_of(_call, _call,
                  st.tuples(st.just("load"), st.sampled_from([0, 512, 1024, 2048]), st.integers(1, 256),
                            st.sampled_from([1.0, -3.5, 2.25, 70000.0])),
                  st.tuples(st.just("forget"), st.integers(0, 3000), st.integers(1, 64)), st.just(("barrier",)),
                  st.tuples(st.sampled_from(["copy_in", "copy_out"]), st.sampled_from([0, 512, 1024, 2048, 16]),
                            st.sampled_from([0, 16, 128, 256, 3]), st.sampled_from([0, 16, 128, 256, 512, 5])),
                  st.tuples(st.just("gm_forget"), st.integers(0, 2048), st.integers(1, 64)),
                  st.tuples(st.just("unary"), st.sampled_from(["Relu", "Exp"]), _offsets, _offsets, st.just(()),
                            st.integers(0, 300)),
                  st.tuples(st.just("unary"), st.sampled_from(["Adds", "Muls"]), _offsets, _offsets,
                            st.tuples(st.sampled_from([0.5, -2.0, 3.0])), st.integers(0, 300)))


@given(st.lists(_step, min_size=1, max_size=12), st.sampled_from(["poison", "error"]))
@settings(max_examples=60, deadline=None)
def test_warm_and_cold_caches_agree(steps, uninitialized):
    _same(steps + steps, uninitialized)


@pytest.mark.parametrize("args", [(128,), (0,), (64, 2, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)), (64, 2, (1,) * 6),
                                  ([1, 2], 1, asc.BinaryRepeatParams()), (64.0,), (3, 1)])
@pytest.mark.parametrize("set_mask", [True, False])
@pytest.mark.parametrize("counter", [False, True])
def test_the_short_key_is_the_general_key(core, args, set_mask, counter):
    ctx = core.context
    ctx.counter_mode = counter
    t = [core.t(asc.half, 128, 0), core.t(asc.half, 128, 256), core.t(asc.int8_t, 128, 512)]
    assert repeat.call_key3(ctx, "Add", *t, args, set_mask) == repeat.call_key(ctx, "Add", t, args, set_mask)
    assert repeat.call_key3(ctx, "Add", t[0], t[1], None, args, set_mask) is None
