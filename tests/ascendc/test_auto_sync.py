"""launch(..., sync="auto"): the flags and barriers Ascend C's compiler inserts, as timeline events."""
import numpy as np
import pytest

from npusim import ascendc as asc
from npusim.core.errors import ConstraintError, RaceError


def _no_sync_kernel(x, z):
    """A kernel that relies on auto-sync: the queues order GM <-> UB, nothing orders the vector chain or the
    scalar read of a vector result."""
    xg = asc.GlobalTensor(asc.float); xg.SetGlobalBuffer(x, 64)
    zg = asc.GlobalTensor(asc.float); zg.SetGlobalBuffer(z, 64)
    pipe = asc.TPipe()
    qi = asc.TQue(asc.TPosition.VECIN, 1); pipe.InitBuffer(qi, 1, 256)
    qo = asc.TQue(asc.TPosition.VECOUT, 1); pipe.InitBuffer(qo, 1, 256)
    t = qi.AllocTensor(asc.float)
    asc.DataCopy(t, xg, 64)
    qi.EnQue(t); t = qi.DeQue(asc.float)     # MTE2_V from the queue
    u = qo.AllocTensor(asc.float)
    asc.Adds(u, t, 1.0, 64)
    asc.Muls(u, u, 2.0, 64)                 # V reads what V wrote: PipeBarrier<PIPE_V>
    s = u.GetValue(0)                       # S reads a vector result: V_S
    u.SetValue(1, s)                        # S rewrites it (no other pipe waits: ordered after V_S)
    asc.Adds(u, u, 0.0, 64)                 # V reads what S wrote: S_V
    qo.EnQue(u); u = qo.DeQue(asc.float)     # V_MTE3 from the queue
    asc.DataCopy(zg, u, 64)
    qi.FreeTensor(t); qo.FreeTensor(u)


def _events(res, name):
    return [e for e in res.trace.events if e.name == name]


def test_auto_sync_inserts_what_the_compiler_would():
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(64, np.float32)
    res = asc.launch(_no_sync_kernel, 1, x, z)
    want = (x + 1) * 2
    want[1] = want[0]
    np.testing.assert_array_equal(z, want)
    auto = [(e.name, (e.args or {}).get("event") or (e.args or {}).get("pipe"))
            for e in res.trace.events if (e.args or {}).get("auto")]
    # the V_S flag drains PIPE_V, so the last Adds needs no barrier of its own
    assert auto == [("PipeBarrier", "PIPE_V"), ("SetFlag", "V_S"), ("WaitFlag", "V_S"),
                    ("SetFlag", "S_V"), ("WaitFlag", "S_V")]
    assert res.auto_syncs == 3
    ev = {e.name: e for e in res.trace.events}
    assert ev["GetValue"].start_ns >= ev["Muls"].end_ns          # the V_S flag orders it
    assert _events(res, "Adds")[1].start_ns >= ev["SetValue"].end_ns
    wait = _events(res, "WaitFlag")[0]
    assert wait.cycles == 1 and wait.engine == "PIPE_S"


def test_manual_sync_reports_each_missing_flag_naming_both_instructions():
    x = np.zeros(64, np.float32)
    with pytest.raises(RaceError, match=r"Muls reads what Adds wrote"):
        asc.launch(_no_sync_kernel, 1, x, np.zeros(64, np.float32), sync="manual")


def _tbuf_copy_then_add(x, z):
    """反例1 of the vendor's auto-sync page: a DataCopy into a TBuf read by Add with no queue or flag."""
    xg = asc.GlobalTensor(asc.float); xg.SetGlobalBuffer(x, 64)
    pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 1024)
    t = b.Get(asc.float, 64)
    u = b.GetWithOffset(asc.float, 64, 256)
    asc.DataCopy(t, xg, 64)
    asc.Adds(u, t, 1.0, 64)


@pytest.mark.parametrize("sync", ["auto", "manual"])
def test_mte2_to_v_without_queue_is_a_race_even_with_auto_sync(sync):
    with pytest.raises(RaceError, match=r"Adds on PIPE_V.*DataCopy on PIPE_MTE2"):
        asc.launch(_tbuf_copy_then_add, 1, np.zeros(64, np.float32), np.zeros(64, np.float32), sync=sync)


def test_manual_pipe_v_race_names_both_instructions():
    def k(x, z):
        xg = asc.GlobalTensor(asc.float); xg.SetGlobalBuffer(x, 64)
        pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 1024)
        t = b.Get(asc.float, 64)
        u = b.GetWithOffset(asc.float, 64, 256)
        asc.DataCopy(t, xg, 64)
        asc.SetFlag(asc.HardEvent.MTE2_V, 0); asc.WaitFlag(asc.HardEvent.MTE2_V, 0)
        asc.Adds(u, t, 1.0, 64)
        asc.Muls(u, u, 2.0, 64)
    with pytest.raises(RaceError, match=r"Muls reads what Adds wrote"):
        asc.launch(k, 1, np.zeros(64, np.float32), np.zeros(64, np.float32), sync="manual")


def test_explicit_synchronisation_needs_no_auto_sync():
    """The AddCustom-style double-buffered kernel orders everything through its queues: nothing inserted,
    same timing as manual."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "ascendc", "add_custom.py")
    spec = importlib.util.spec_from_file_location("asc_example_add_custom_sync", path)
    ac = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ac)
    x = np.ones(8 * 2048, np.float16)
    y = np.ones(8 * 2048, np.float16)
    z1, z2 = np.zeros_like(x), np.zeros_like(x)
    r1 = asc.launch(ac.add_custom, 8, x, y, z1)
    r2 = asc.launch(ac.add_custom, 8, x, y, z2, sync="manual")
    assert r1.auto_syncs == 0 and r1.end_ns == r2.end_ns
    np.testing.assert_array_equal(z1, x + y)


def test_auto_sync_costs_time_on_the_timeline():
    x = np.arange(64, dtype=np.float32)
    res = asc.launch(_no_sync_kernel, 1, x, np.zeros(64, np.float32))
    flags = [e for e in res.trace.events if (e.args or {}).get("auto")]
    assert sum(e.cycles for e in flags) == 5      # 2 pairs of 1-cycle flags + one 1-cycle barrier


def _overlapping_blocks(x, z):
    i = asc.GetBlockIdx()
    zg = asc.GlobalTensor(asc.half); zg.SetGlobalBuffer(z.cast(asc.half) + 64 * i, 128)
    pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 256)
    t = b.Get(asc.half, 128)
    asc.Duplicate(t, float(i), 128)
    asc.SetFlag(asc.HardEvent.V_MTE3, 0); asc.WaitFlag(asc.HardEvent.V_MTE3, 0)
    asc.DataCopy(zg, t, 128)


@pytest.mark.parametrize("sync", ["auto", "manual"])
def test_cross_core_race_is_reported_in_both_modes(sync):
    with pytest.raises(RaceError, match="multi-core overlap"):
        asc.launch(_overlapping_blocks, 4, np.zeros(8, np.float16), np.zeros(4 * 128, np.float16), sync=sync)


def _use_after_free(x):
    xg = asc.GlobalTensor(asc.half); xg.SetGlobalBuffer(x, 128)
    pipe = asc.TPipe(); q = asc.TQue(asc.TPosition.VECIN, 1); pipe.InitBuffer(q, 1, 256)
    t = q.AllocTensor(asc.half)
    asc.DataCopy(t, xg, 128)
    q.EnQue(t); t = q.DeQue(asc.half)
    q.FreeTensor(t)
    asc.Adds(t, t, 1.0, 128)


@pytest.mark.parametrize("sync", ["auto", "manual"])
def test_queue_misuse_is_reported_in_both_modes(sync):
    with pytest.raises(ConstraintError, match="queue misuse"):
        asc.launch(_use_after_free, 1, np.zeros(128, np.float16), sync=sync)


def test_sync_mode_is_checked():
    with pytest.raises(ConstraintError, match="sync"):
        asc.launch(_use_after_free, 1, np.zeros(128, np.float16), sync="none")


def test_auto_sync_orders_the_timeline_even_with_race_checks_off():
    import npusim
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(64, np.float32)
    with npusim.configure(check_races=False):
        res = asc.launch(_no_sync_kernel, 1, x, z)
    ev = {e.name: e for e in res.trace.events}
    assert res.auto_syncs == 3 and ev["GetValue"].start_ns >= ev["Muls"].end_ns


def test_race_message_names_both_source_lines():
    with pytest.raises(RaceError) as e:
        asc.launch(_tbuf_copy_then_add, 1, np.zeros(64, np.float32), np.zeros(64, np.float32))
    msg = str(e.value)
    assert msg.count("test_auto_sync.py:") == 2 and "MTE2_V" in msg
