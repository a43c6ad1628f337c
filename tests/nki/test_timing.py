"""Timing: costs from reference §4 on the engines' clocks, data-dependency order, DMA queues."""
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.nki import cost, run_context


def filled(shape, dtype=nl.float32, buffer=None):
    t = nl.ndarray(shape, dtype, buffer=buffer or nl.sbuf)
    t.write(np.ones(shape, np.float32).astype(t.tv.dtype.np))
    return t


@pytest.mark.parametrize("n,cycles", [(512, 512), (32, 64), (64, 64), (4096, 4096)])
def test_tensor_scalar_max_min_ii_n(n, cycles):
    with run_context("trn1"):
        ev = nisa.tensor_scalar(nl.ndarray((128, n), nl.float32), filled((128, n)), nl.multiply, 2.0,
                                op1=nl.add, operand1=1.0, engine=nisa.engine.vector).event
        assert ev.cycles == cycles
        assert ev.dur_ns == pytest.approx(cycles / 1.12)      # trn1 VectorE at 1.12 GHz
        one = nisa.tensor_scalar(nl.ndarray((128, n), nl.float32), filled((128, n)), nl.multiply, 2.0,
                                 engine=nisa.engine.vector).event
        assert one.cycles == ev.cycles                        # one op costs what two cost


def test_fewer_partitions_cost_the_same():
    with run_context("trn1"):
        a = nisa.tensor_scalar(nl.ndarray((128, 256), nl.float32), filled((128, 256)), nl.add, 1.0,
                               engine=nisa.engine.vector).event
        b = nisa.tensor_scalar(nl.ndarray((8, 256), nl.float32), filled((8, 256)), nl.add, 1.0,
                               engine=nisa.engine.vector).event
        assert a.cycles == b.cycles == 256


def test_trn2_vector_perf_modes():
    with run_context("trn2"):
        bf = lambda: filled((128, 1024), nl.bfloat16)
        four = nisa.tensor_scalar(nl.ndarray((128, 1024), nl.bfloat16), bf(), nl.add, 1.0,
                                  engine=nisa.engine.vector).event
        assert four.cycles == 256                                          # 4x: bf16 SBUF->SBUF contiguous
        strided = bf()[:, ::2]
        two = nisa.tensor_scalar(nl.ndarray((128, 512), nl.bfloat16), strided, nl.add, 1.0,
                                 engine=nisa.engine.vector).event
        assert two.cycles == 256                                           # 2x: 512 elements not contiguous
        ps = nisa.tensor_copy(nl.ndarray((128, 1024), nl.bfloat16), filled((128, 1024), nl.bfloat16, nl.psum),
                              engine=nisa.engine.vector).event
        assert ps.cycles == 512                                            # 2x: one side in PSUM
        tt = nisa.tensor_tensor(nl.ndarray((128, 1024), nl.bfloat16), bf(), bf(), nl.add).event
        assert tt.cycles == 1024                                           # 2N / 2
    with run_context("trn1"):
        bf = filled((128, 1024), nl.bfloat16)
        ev = nisa.tensor_scalar(nl.ndarray((128, 1024), nl.bfloat16), bf, nl.add, 1.0).event
        assert ev.cycles == 1024 and ev.engine == "vector"                 # no perf mode on trn1


def test_tensor_tensor_two_n_and_psum_input():
    with run_context("trn1"):
        a, b = filled((128, 300)), filled((128, 300))
        assert nisa.tensor_tensor(nl.ndarray((128, 300), nl.float32), a, b, nl.add).event.cycles == 600
        p = filled((128, 300), buffer=nl.psum)
        assert nisa.tensor_tensor(nl.ndarray((128, 300), nl.float32), p, b, nl.add).event.cycles == 300
        assert nisa.tensor_tensor(nl.ndarray((128, 16), nl.float32), filled((128, 16)), filled((128, 16)),
                                  nl.add).event.cycles == 64


def test_stride_penalty_and_gpsimd_rsqrt():
    with run_context("trn1"):
        t = filled((128, 1024))
        ev = nisa.tensor_scalar(nl.ndarray((128, 256), nl.float32), t[:, ::4], nl.add, 1.0,
                                engine=nisa.engine.vector).event
        assert ev.cycles == 512                         # 16-byte innermost stride halves bandwidth
        g = nisa.tensor_scalar(nl.ndarray((128, 256), nl.float32), filled((128, 256)), nl.rsqrt, None,
                               engine=nisa.engine.gpsimd).event
        assert g.cycles == 1024 and g.dur_ns == pytest.approx(1024 / 1.4)


def test_trn2_and_trn3_vector_stream_fp32_at_256_elements_per_cycle():
    """Arch guides: VectorE "512 bf16/fp16, 256 other" elements/cycle (trn3: fp8 joins the 512 class);
    NC-v2 streams 128. So fp32 work is 2 elements per partition per cycle, and at 0.96 GHz a trn2
    fp32 tensor_scalar beats trn1's (1.12 GHz, 1 per cycle) instead of trailing it."""
    times = {}
    for target, ghz in (("trn1", 1.12), ("trn2", 0.96), ("trn3", 1.2)):
        with run_context(target):
            ev = nisa.tensor_scalar(nl.ndarray((128, 2048), nl.float32), filled((128, 2048)), nl.multiply, 2.0,
                                    engine=nisa.engine.vector).event
            assert ev.cycles == (2048 if target == "trn1" else 1024)
            times[target] = ev.dur_ns
            assert ev.dur_ns == pytest.approx(ev.cycles / ghz)
            tt = nisa.tensor_tensor(nl.ndarray((128, 2048), nl.float32), filled((128, 2048)), filled((128, 2048)),
                                    nl.add).event
            assert tt.cycles == (4096 if target == "trn1" else 2048)      # 2N reads at 1 or 2 per cycle
            i32 = nisa.tensor_copy(nl.ndarray((128, 512), nl.int32), filled((128, 512), nl.int32),
                                   engine=nisa.engine.vector).event
            assert i32.cycles == (512 if target == "trn1" else 256)
            f8 = nisa.tensor_copy(nl.ndarray((128, 512), nl.float8_e4m3), filled((128, 512), nl.float8_e4m3),
                                  engine=nisa.engine.vector).event
            assert f8.cycles == {"trn1": 512, "trn2": 256, "trn3": 128}[target]   # fp8: 512 class on trn3
    assert times["trn2"] < times["trn1"] and times["trn3"] < times["trn2"]


def test_memset_cost():
    with run_context("trn2"):
        assert nisa.memset(nl.ndarray((128, 1024), nl.bfloat16), 0.0).event.cycles == 512
        assert nisa.memset(nl.ndarray((128, 1024), nl.bfloat16), 1.0).event.cycles == 1024
        assert nisa.memset(nl.ndarray((128, 8), nl.float32), 0.0).event.cycles == 64


@pytest.mark.parametrize("target,bw", [("trn1", 17.0), ("trn2", 23.0), ("trn3", 33.0)])
def test_dma_cost_fixed_plus_bytes_over_queues(target, bw):
    with run_context(target) as run:
        h = nl.ndarray((128, 1024), nl.float32, buffer=nl.hbm)
        h.write(np.zeros((128, 1024), np.float32))
        ev = nisa.dma_copy(dst=nl.ndarray((128, 1024), nl.float32), src=h).event
        assert ev.dur_ns == pytest.approx(1300 + 128 * 4096 / (bw * 16))
        ev8 = nisa.dma_copy(dst=nl.ndarray((8, 1024), nl.float32), src=h[0:8]).event
        assert ev8.dur_ns == pytest.approx(1300 + 8 * 4096 / bw)      # 8 partitions: one DMA engine
        assert ev.engine.startswith("dma-q") and ev8.engine != ev.engine   # another free queue
        assert run.timeline.engines[ev.engine].freq_hz == 1e9


def test_matmul_cost_formula_for_tensor_engine_ops():
    assert cost.matmul(128, 512, fp32=False) == 512
    assert cost.matmul(128, 16, fp32=False) == 64
    assert cost.matmul(32, 16, fp32=True) == 128


def test_data_dependencies_order_engines_and_dma_overlaps_compute():
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(a.shape[0] // 128):
            t = nl.ndarray((128, a.shape[1]), a.dtype)
            nisa.dma_copy(dst=t, src=a[nl.ds(i * 128, 128), :])
            r = nl.ndarray((128, a.shape[1]), a.dtype)
            nisa.tensor_tensor(r, t, t, nl.add)      # 2N reads: long enough for the next load to overlap it
            nisa.dma_copy(dst=out[nl.ds(i * 128, 128), :], src=r)
        return out

    a = np.ones((512, 2048), np.float32)
    np.testing.assert_array_equal(nki.simulate(k, target="trn2")(a), 2 * a)
    ev = nki.last_run().trace.events
    loads = [e for e in ev if e.name == "nisa.dma_copy"][0::2]
    comps = [e for e in ev if e.name == "nisa.tensor_tensor"]
    stores = [e for e in ev if e.name == "nisa.dma_copy"][1::2]
    for ld, c, st in zip(loads, comps, stores):
        assert c.start_ns >= ld.end_ns and st.start_ns >= c.end_ns      # RAW through SBUF
    assert loads[1].start_ns < comps[0].end_ns                           # loads overlap compute
    total = max(e.end_ns for e in ev)
    assert total < sum(e.dur_ns for e in ev)                             # engines ran in parallel
    assert {e.engine for e in comps} == {"vector"}


def test_war_on_a_reused_buffer_waits_for_the_reader():
    with run_context("trn2") as run:
        h = nl.ndarray((128, 512), nl.float32, buffer=nl.hbm)
        h.write(np.zeros((128, 512), np.float32))
        t = nl.ndarray((128, 512), nl.float32)
        nisa.dma_copy(dst=t, src=h)
        out = nl.ndarray((128, 512), nl.float32)
        c = nisa.tensor_scalar(out, t, nl.add, 1.0, engine=nisa.engine.vector).event
        w = nisa.dma_copy(dst=t, src=h).event                  # overwrites what the Vector engine reads
        assert w.start_ns >= c.end_ns


def test_trace_threads_are_engines():
    with run_context("trn2") as run:
        names = {e for (_, e) in run.trace.engines}
        assert {"tensor", "vector", "scalar", "gpsimd", "dma-q0", "dma-q15"} <= names


def test_dma_engines_share_bandwidth_and_backfill():
    with run_context("trn2") as run:
        h = nl.ndarray((128, 1024), nl.float32, buffer=nl.hbm)
        h.write(np.zeros((128, 1024), np.float32))
        data_ns = 128 * 4096 / (23.0 * 16)
        a = nisa.dma_copy(dst=nl.ndarray((128, 1024), nl.float32), src=h).event
        b = nisa.dma_copy(dst=nl.ndarray((128, 1024), nl.float32), src=h).event
        assert a.engine != b.engine                                   # two queues ...
        assert b.start_ns == pytest.approx(a.end_ns - 1300)          # ... fixed latencies overlap,
        assert b.end_ns == pytest.approx(a.end_ns + data_ns)         # data phases share the engines
        # partitions 64..127 use DMA engines 8..15 only: a transfer on 0..63 runs beside it
        lo = nisa.dma_copy(dst=nl.ndarray((64, 1024), nl.float32), src=h[0:64]).event
        hi_t = nl.ndarray((128, 1024), nl.float32)
        hi = nisa.dma_copy(dst=hi_t[64:128], src=h[64:128]).event
        assert hi.start_ns < lo.end_ns
    with run_context("trn2"):
        # a store that waits on compute does not hold up a later, independent load
        h = nl.ndarray((128, 1024), nl.float32, buffer=nl.hbm)
        h.write(np.zeros((128, 1024), np.float32))
        t = nl.ndarray((128, 16384), nl.float32)
        m = nisa.memset(t, 1.0).event                                   # ~17 us on the Vector engine
        out = nl.ndarray((128, 16384), nl.float32, buffer=nl.shared_hbm)
        st = nisa.dma_copy(dst=out, src=t).event
        ld = nisa.dma_copy(dst=nl.ndarray((128, 1024), nl.float32), src=h).event
        assert st.start_ns >= m.end_ns and ld.start_ns == 0 and ld.end_ns < st.start_ns


@pytest.mark.parametrize("target,serial", [("trn1", True), ("trn2", False)])
def test_nc_v2_vector_and_gpsimd_share_the_sbuf_port(target, serial):
    with run_context(target):
        a, b = filled((128, 2048)), filled((128, 2048))
        v = nisa.tensor_scalar(nl.ndarray((128, 2048), nl.float32), a, nl.add, 1.0,
                               engine=nisa.engine.vector).event
        g = nisa.tensor_scalar(nl.ndarray((128, 2048), nl.float32), b, nl.rsqrt, None,
                               engine=nisa.engine.gpsimd).event
        assert (g.start_ns >= v.end_ns) == serial            # independent data: only the port orders them
        p = filled((128, 512), buffer=nl.psum)
        s_ev = nisa.tensor_copy(nl.ndarray((128, 512), nl.float32), p,
                                engine=nisa.engine.scalar).event if target != "trn1" else None
        if s_ev is not None:
            assert s_ev.start_ns < max(v.end_ns, g.end_ns)    # trn2: Scalar reads PSUM beside the others
