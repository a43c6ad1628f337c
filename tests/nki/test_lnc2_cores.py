"""LNC2's two physical cores as two timelines (lnc.py "Cores"): each core's programs place their
instructions on that core's engines and DMA queues ("nc0", "nc1"); cores order each other through
sendrecv, core_barrier and the collectives. Other grids keep the one timeline of before."""
import hashlib

import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.collectives as ncc
import npusim.nki.isa as nisa
import npusim.nki.language as nl

N_OPS = 20


@nki.jit
def vector_work(a):
    """Each program loads its rows, runs N_OPS dependent vector ops on them, stores them."""
    n, d = a.shape
    p = n // nl.num_programs(0)
    i = nl.program_id(0)
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((p, d), a.dtype)
    nisa.dma_copy(dst=t, src=a[i * p:(i + 1) * p, :])
    for _ in range(N_OPS):
        nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=1.0)
    nisa.dma_copy(dst=out[i * p:(i + 1) * p, :], src=t)
    return out


@nki.jit
def all_reduce_rows(a):
    r = nl.program_id(0)
    n = nl.num_programs(0)
    rows = a.shape[0] // n
    mine = nl.ndarray((rows, a.shape[1]), a.dtype, buffer=nl.private_hbm)
    nisa.dma_copy(dst=mine, src=a[r * rows:(r + 1) * rows, :])
    res = nl.ndarray((rows, a.shape[1]), a.dtype, buffer=nl.private_hbm)
    ncc.all_reduce(srcs=[mine], dsts=[res], replica_group=ncc.ReplicaGroup([list(range(n))]), op=nl.add)
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((rows, a.shape[1]), a.dtype)
    nisa.dma_copy(dst=t, src=res)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=2.0)
    nisa.dma_copy(dst=out[r * rows:(r + 1) * rows, :], src=t)
    return out


def _digest(events) -> str:
    rows = [(e.core, e.engine, e.name, repr(e.start_ns), repr(e.end_ns), e.cycles, e.nbytes) for e in events]
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


def _run(kernel, grid, target, a):
    k = kernel if grid is None else kernel[grid]
    got = nki.simulate(k, target=target)(a)
    return got, nki.last_run().trace.events


# Digests of the events these launches made before LNC2 had two timelines (one core, "nc0").
UNCHANGED = {
    ("vector_work", None, "trn2"): "fb546667883aa096",
    ("vector_work", 2, "trn1"): "fc3356cf553193d3",
    ("vector_work", 4, "trn2"): "84cf07537554e0c3",
    ("vector_work", 4, "trn3"): "5db1ff9a7cdb7c17",
    ("all_reduce_rows", 2, "trn1"): "e86702252f501a10",
    ("all_reduce_rows", 4, "trn2"): "14b7631dd74bec85",
}


@pytest.mark.parametrize("key", sorted(UNCHANGED, key=repr))
def test_other_grids_keep_their_events(key):
    name, grid, target = key
    a = np.arange(128 * 16, dtype=np.float32).reshape(128, 16)
    _, events = _run(globals()[name], grid, target, a)
    assert {e.core for e in events} == {"nc0"}
    assert _digest(events) == UNCHANGED[key]


# ---- LNC2: two timelines ----

def _on(events, core, name=None, engine=None):
    return [e for e in events if e.core == core and (name is None or e.name == name)
            and (engine is None or e.engine == engine)]


@pytest.mark.parametrize("target", ["trn2", "trn3"])
def test_lnc2_two_programs_take_about_one_programs_time(target):
    a = np.arange(128 * 16, dtype=np.float32).reshape(128, 16)
    got, events = _run(vector_work, 2, target, a)
    np.testing.assert_array_equal(got, a + N_OPS)
    lnc2 = nki.last_run().trace.total_ns
    _, one = _run(vector_work, None, target, a)       # one program doing the same per-core work
    single = nki.last_run().trace.total_ns
    per_core = [sum(e.dur_ns for e in _on(events, c, engine="vector")) for c in ("nc0", "nc1")]
    assert per_core[0] == per_core[1] > 0
    assert len(_on(events, "nc0", "nisa.tensor_scalar")) == len(_on(events, "nc1", "nisa.tensor_scalar")) == N_OPS
    # the cores run side by side: the launch takes the longer core's time, not the sum of both
    assert lnc2 == pytest.approx(single, rel=1e-9)
    # (one timeline for both gave single + one core's vector time: the two cores' vector ops in series)
    assert lnc2 < single + per_core[1] / 2


def test_lnc2_trace_has_both_cores_engines(tmp_path):
    a = np.ones((128, 16), np.float32)
    _, events = _run(vector_work, 2, "trn2", a)
    run = nki.last_run()
    assert [tl.core for tl in run.timelines] == ["nc0", "nc1"]
    assert run.timeline is run.timelines[0]
    engines = set(run.trace.engines)
    for core in ("nc0", "nc1"):
        assert {(core, e) for e in ("tensor", "vector", "scalar", "gpsimd", "dma-q0", "dma-q15", "sync")} <= engines
        assert {e.engine for e in _on(events, core)} >= {"vector"}
        assert any(e.engine.startswith("dma-q") for e in _on(events, core))
    doc = run.trace.to_chrome(tmp_path / "t.json")
    procs = {m["args"]["name"]: m["pid"] for m in doc["traceEvents"] if m["name"] == "process_name"}
    assert set(procs) == {"nc0", "nc1"}
    vec = [x for x in doc["traceEvents"] if x["ph"] == "X" and x["name"] == "nisa.tensor_scalar"]
    assert {x["pid"] for x in vec} == set(procs.values())
    run.trace.plot(tmp_path / "t.png")
    assert (tmp_path / "t.png").stat().st_size > 0


def test_lnc2_cli_trace_and_plot_show_both_cores(tmp_path, capsys):
    import json
    from npusim.cli import main
    script = tmp_path / "k.py"
    script.write_text(
        "import numpy as np\n"
        "import npusim.nki as nki, npusim.nki.isa as nisa, npusim.nki.language as nl\n"
        "@nki.jit\n"
        "def k(a):\n"
        "    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)\n"
        "    i = nl.program_id(0)\n"
        "    t = nl.ndarray((64, 4), a.dtype)\n"
        "    nisa.dma_copy(dst=t, src=a[i * 64:(i + 1) * 64, :])\n"
        "    nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=1.0)\n"
        "    nisa.dma_copy(dst=out[i * 64:(i + 1) * 64, :], src=t)\n"
        "    return out\n"
        "nki.simulate(k[2])(np.zeros((128, 4), np.float32))\n")
    trace, png = tmp_path / "t.json", tmp_path / "t.png"
    assert main(["nki", str(script), "--target", "trn2", "--trace", str(trace), "--plot", str(png)]) == 0
    doc = json.loads(trace.read_text())
    cores = {m["args"]["name"] for m in doc["traceEvents"] if m["name"] == "process_name"}
    assert {"nc0", "nc1"} <= cores
    assert png.stat().st_size > 0


@nki.jit
def slow_sender(a):
    """Core 0 works N_OPS vector ops on the tile it sends; core 1 sends at once. Each stores what it got."""
    n, d = a.shape
    half = n // 2
    rank = nl.program_id(0)
    out = nl.ndarray((n, d), a.dtype, buffer=nl.shared_hbm)
    send = nl.ndarray((half, d), a.dtype)
    nisa.dma_copy(dst=send, src=a[rank * half:(rank + 1) * half, :])
    if rank == 0:
        for _ in range(N_OPS):
            nisa.tensor_scalar(dst=send, data=send, op0=nl.multiply, operand0=2.0)
    recv = nl.ndarray((half, d), a.dtype)
    nisa.sendrecv(src=send, dst=recv, send_to_rank=1 - rank, recv_from_rank=1 - rank, pipe_id=0)
    nisa.dma_copy(dst=out[rank * half:(rank + 1) * half, :], src=recv)
    return out


def test_sendrecv_orders_the_receiver_after_the_sender():
    a = np.arange(64 * 8, dtype=np.float32).reshape(64, 8)
    got = nki.simulate(slow_sender[2], target="trn2")(a)
    np.testing.assert_array_equal(got, np.concatenate([a[32:], a[:32] * 2.0 ** N_OPS]))
    ev = nki.last_run().trace.events
    last_write = max(e.end_ns for e in _on(ev, "nc0", "nisa.tensor_scalar"))
    (recv1,) = _on(ev, "nc1", "nisa.sendrecv")
    (recv0,) = _on(ev, "nc0", "nisa.sendrecv")
    (load1,) = [e for e in _on(ev, "nc1", "nisa.dma_copy") if e.start_ns < recv1.start_ns]
    assert recv1.start_ns >= last_write > load1.end_ns     # core 1 waited for core 0's tile, not for its own
    assert recv0.start_ns >= last_write
    (store1,) = [e for e in _on(ev, "nc1", "nisa.dma_copy") if e.start_ns >= recv1.end_ns]
    assert store1.start_ns >= recv1.end_ns


@nki.jit
def slow_half_then_barrier(a):
    """Core 0 writes its half of a shared tensor late; both pass a core_barrier, then read it whole."""
    n, d = a.shape
    half = n // 2
    rank = nl.program_id(0)
    shared = nl.ndarray((n, d), a.dtype, buffer=nl.shared_hbm)
    out = nl.ndarray((n, d), a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((half, d), a.dtype)
    nisa.dma_copy(dst=t, src=a[rank * half:(rank + 1) * half, :])
    if rank == 0:
        for _ in range(N_OPS):
            nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=1.0)
    nisa.dma_copy(dst=shared[rank * half:(rank + 1) * half, :], src=t)
    nisa.core_barrier(data=shared, cores=(0, 1))
    whole = nl.ndarray((n, d), a.dtype)
    nisa.dma_copy(dst=whole, src=shared)
    nisa.dma_copy(dst=out[rank * half:(rank + 1) * half, :], src=whole[(1 - rank) * half:(2 - rank) * half, :])
    return out


def test_core_barrier_ends_after_the_last_core_arrived():
    a = np.arange(64 * 8, dtype=np.float32).reshape(64, 8)
    got = nki.simulate(slow_half_then_barrier[2], target="trn2")(a)
    np.testing.assert_array_equal(got, np.concatenate([a[32:], a[:32] + N_OPS]))
    ev = nki.last_run().trace.events
    b0, b1 = _on(ev, "nc0", "nisa.core_barrier")[0], _on(ev, "nc1", "nisa.core_barrier")[0]
    store0 = [e for e in _on(ev, "nc0", "nisa.dma_copy") if e.end_ns <= b0.start_ns][-1]
    store1 = [e for e in _on(ev, "nc1", "nisa.dma_copy") if e.end_ns <= b1.start_ns][-1]
    assert store1.end_ns < store0.end_ns            # core 1 arrived first ...
    assert b0.start_ns == b1.start_ns >= store0.end_ns     # ... and waited for core 0
    assert b0.engine == b1.engine == "gpsimd"
    read1 = [e for e in _on(ev, "nc1", "nisa.dma_copy") if e.start_ns >= b1.start_ns]
    assert read1 and min(e.start_ns for e in read1) >= b1.end_ns    # reading `shared` waits for the barrier


def test_lnc2_collective_waits_for_every_ranks_sources():
    a = np.arange(128 * 16, dtype=np.float32).reshape(128, 16)

    @nki.jit
    def k(a):
        r = nl.program_id(0)
        rows = a.shape[0] // 2
        t = nl.ndarray((rows, a.shape[1]), a.dtype)
        nisa.dma_copy(dst=t, src=a[r * rows:(r + 1) * rows, :])
        if r == 1:
            for _ in range(N_OPS):
                nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=1.0)
        mine = nl.ndarray((rows, a.shape[1]), a.dtype, buffer=nl.private_hbm)
        nisa.dma_copy(dst=mine, src=t)
        res = nl.ndarray((rows, a.shape[1]), a.dtype, buffer=nl.private_hbm)
        ncc.all_reduce(srcs=[mine], dsts=[res], replica_group=ncc.ReplicaGroup([[0, 1]]), op=nl.add)
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out[r * rows:(r + 1) * rows, :], src=res)
        return out
    got = nki.simulate(k[2], target="trn2")(a)
    s = a[:64] + a[64:] + N_OPS
    np.testing.assert_array_equal(got, np.concatenate([s, s]))
    ev = nki.last_run().trace.events
    src1_written = _on(ev, "nc1", "nisa.dma_copy")[1].end_ns       # core 1's `mine`, after its vector ops
    (ar0,) = _on(ev, "nc0", "nki.collectives.all_reduce")
    assert ar0.start_ns >= src1_written > _on(ev, "nc0", "nisa.dma_copy")[1].end_ns


@nki.jit
def matmul_work(a, b):
    """Each program multiplies its 128-column block of ``b`` by ``a`` N_OPS // 4 times on TensorE."""
    i = nl.program_id(0)
    out = nl.ndarray((128, b.shape[1]), nl.float32, buffer=nl.shared_hbm)
    at = nl.ndarray((128, 128), a.dtype)
    bt = nl.ndarray((128, 128), b.dtype)
    nisa.dma_copy(dst=at, src=a)
    nisa.dma_copy(dst=bt, src=b[:, i * 128:(i + 1) * 128])
    acc = nl.ndarray((128, 128), nl.float32, buffer=nl.psum)
    for _ in range(N_OPS // 4):
        nisa.nc_matmul(dst=acc, stationary=at, moving=bt)
    res = nl.ndarray((128, 128), nl.float32)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out[:, i * 128:(i + 1) * 128], src=res)
    return out


def test_lnc2_matmul_weight_loads_are_per_core():
    rng = np.random.default_rng(0)
    a = rng.integers(-2, 3, (128, 128)).astype(np.float32)
    b = rng.integers(-2, 3, (128, 256)).astype(np.float32)
    got = nki.simulate(matmul_work[2], target="trn2")(a, b)
    np.testing.assert_array_equal(got, (N_OPS // 4) * (a.T @ b))
    ev = nki.last_run().trace.events
    mm = {c: _on(ev, c, "nisa.nc_matmul") for c in ("nc0", "nc1")}
    # both cores run the same schedule: core 1's TensorE does not wait for core 0's weight loads
    assert [(e.start_ns, e.end_ns) for e in mm["nc0"]] == [(e.start_ns, e.end_ns) for e in mm["nc1"]]
