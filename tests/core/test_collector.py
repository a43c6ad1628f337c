"""core.collector.launch_scope: the launch's collections skip pre-launch objects, and the caller's own
collector settings are left alone; the young threshold is raised for the launch only; Timeline.forget_accesses at the end of an NKI launch."""
import gc

import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.collector import YOUNG_THRESHOLD, launch_scope
from npusim.core.timeline import Timeline
from npusim.core.view import Footprint
from npusim.core.memory import Memory


def test_launch_scope_freezes_then_unfreezes():
    assert gc.get_freeze_count() == 0
    with launch_scope():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_launch_scope_leaves_a_callers_freeze_and_a_disabled_collector_alone():
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        with launch_scope():
            pass
        assert gc.get_freeze_count() == before          # not unfrozen by the scope
    finally:
        gc.unfreeze()
    gc.disable()
    try:
        with launch_scope():
            assert gc.get_freeze_count() == 0 and not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_launch_scope_raises_the_young_threshold_for_the_launch_only():
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with launch_scope():
            assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(10 * YOUNG_THRESHOLD, 5, 5)        # a caller's higher threshold is not lowered
        with launch_scope():
            assert gc.get_threshold() == (10 * YOUNG_THRESHOLD, 5, 5)
        assert gc.get_threshold() == (10 * YOUNG_THRESHOLD, 5, 5)
        gc.set_threshold(0)                                 # 0: young collections off, left so
        with launch_scope():
            assert gc.get_threshold()[0] == 0
        gc.set_threshold(700, 10, 10)
        with launch_scope():
            gc.set_threshold(123, 4, 4)                     # changed during the launch: kept
        assert gc.get_threshold() == (123, 4, 4)
        gc.set_threshold(700, 10, 10)
        try:
            with launch_scope():
                raise KeyError("kernel failed")
        except KeyError:
            pass
        assert gc.get_threshold() == (700, 10, 10) and gc.get_freeze_count() == 0
    finally:
        gc.set_threshold(*before)


def test_a_kernel_launch_runs_with_the_raised_threshold_and_restores_it():
    seen = []

    @nki.jit
    def k(x):
        seen.append(gc.get_threshold()[0])
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=x)
        return out

    before = gc.get_threshold()
    nki.simulate(k, target="trn2")(np.ones((2, 2), np.float32))
    assert seen == [max(before[0], YOUNG_THRESHOLD)] and gc.get_threshold() == before


def test_a_kernel_launch_unfreezes_and_its_cycles_are_still_collected():
    class Node:
        pass

    made = []

    @nki.jit
    def k(x):
        a = Node()
        a.me = a                                        # a reference cycle made inside the kernel
        made.append(gc.get_freeze_count())
        t = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out

    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_array_equal(nki.simulate(k, target="trn2")(x), x)
    assert made[0] > 0 and gc.get_freeze_count() == 0
    gc.collect()
    assert not [o for o in gc.get_objects() if type(o) is Node]


def test_forget_accesses_drops_what_data_order_would_wait_for():
    mem = Memory("M", 64)
    fp = Footprint(mem, 0, 1, 0, 64)
    tl = Timeline({"a": 1e9, "b": 1e9})
    tl.place("a", "w", 100, writes=[fp])
    assert tl.place("b", "r", 1, reads=[fp]).start_ns == 100.0      # waits for the write
    tl.forget_accesses()
    assert tl.place("b", "r2", 1, reads=[fp]).start_ns == 101.0     # only its own queue now


def test_a_finished_launch_keeps_no_remembered_accesses():
    @nki.jit
    def k(x):
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=x)
        return out

    nki.simulate(k, target="trn2")(np.ones((2, 2), np.float32))
    assert nki.last_run().timeline._logs == {}
    assert len(nki.last_run().trace.events) == 1                    # the trace stays
