"""LNC2 (two cores, ``kernel[2]``): nisa.sendrecv and nisa.core_barrier (lnc.py). The programs run one
after another; one waits in sendrecv / core_barrier until the other reaches the matching call."""
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError


@nki.jit
def ring_exchange(a):
    """The sendrecv docstring's ring: each core sends its rows and receives the other core's."""
    n, d = a.shape
    half = n // 2
    out = nl.ndarray((n, d), a.dtype, buffer=nl.shared_hbm)
    rank = nl.program_id(0)
    send_data = nl.ndarray((half, d), a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=send_data, src=a[rank * half:(rank + 1) * half, :])
    recv_buffer = nl.ndarray((half, d), a.dtype, buffer=nl.sbuf)
    nisa.sendrecv(src=send_data, dst=recv_buffer, send_to_rank=(rank + 1) % 2, recv_from_rank=(rank - 1) % 2,
                  pipe_id=0)
    nisa.dma_copy(dst=out[rank * half:(rank + 1) * half, :], src=recv_buffer)
    return out


@pytest.mark.parametrize("target", ["trn2", "trn3"])
def test_sendrecv_swaps_the_halves(target):
    a = np.arange(64 * 8, dtype=np.float32).reshape(64, 8)
    got = nki.simulate(ring_exchange[2], target=target)(a)
    np.testing.assert_array_equal(got, np.concatenate([a[32:], a[:32]]))
    ev = [e for e in nki.last_run().trace.events if e.name == "nisa.sendrecv"]
    assert len(ev) == 2 and all(e.engine.startswith("dma-q") for e in ev)


@nki.jit
def halves_then_sum(a):
    """Each core writes half of a shared tensor, both wait at the barrier, then each reads it whole."""
    n, d = a.shape
    half = n // 2
    shared = nl.ndarray((n, d), a.dtype, buffer=nl.shared_hbm)
    out = nl.ndarray((2, d), a.dtype, buffer=nl.shared_hbm)
    rank = nl.program_id(0)
    t = nl.ndarray((half, d), a.dtype)
    nisa.dma_copy(dst=t, src=a[rank * half:(rank + 1) * half, :])
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=10.0)
    nisa.dma_copy(dst=shared[rank * half:(rank + 1) * half, :], src=t)
    nisa.core_barrier(data=shared, cores=(0, 1))
    whole = nl.ndarray((n, d), a.dtype)
    nisa.dma_copy(dst=whole, src=shared)
    s = nl.ndarray((1, d), a.dtype)
    nisa.tensor_partition_reduce(dst=s, op=nl.add, data=whole)
    nisa.dma_copy(dst=out[rank:rank + 1, :], src=s)
    return out


def test_core_barrier_lets_each_core_read_the_others_half():
    a = np.random.default_rng(0).standard_normal((64, 4)).astype(np.float32)
    got = nki.simulate(halves_then_sum[2], target="trn2")(a)
    want = (10 * a).sum(axis=0, dtype=np.float64)
    np.testing.assert_allclose(got, np.stack([want, want]), rtol=1e-5)
    ev = nki.last_run().trace.events
    barriers = [e for e in ev if e.name == "nisa.core_barrier"]
    stores = [e for e in ev if e.name == "nisa.dma_copy" and e.start_ns < barriers[0].start_ns]
    assert len(barriers) == 2 and barriers[0].engine == "gpsimd"
    halves = [e for e in ev if e.name == "nisa.tensor_scalar"]
    assert all(b.start_ns >= max(h.end_ns for h in halves) for b in barriers)   # after both cores arrived
    assert stores


def test_lnc_rules():
    def k_trn1(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, a.dtype)
        nisa.sendrecv(src=t, dst=t, send_to_rank=1, recv_from_rank=1, pipe_id=0)
        return out
    a = np.ones((4, 4), np.float32)
    with pytest.raises(ConstraintError, match="NeuronCore-v3"):
        nki.simulate(nki.jit(k_trn1)[2], target="trn1")(a)
    with pytest.raises(ConstraintError, match="two cores"):
        nki.simulate(k_trn1, target="trn2")(a)

    def bad(kind):
        def k(a):
            out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray((4, 4), nl.float32)
            nisa.memset(dst=t, value=0.0)
            if kind == "rank":
                nisa.sendrecv(src=t, dst=t, send_to_rank=2, recv_from_rank=1, pipe_id=0)
            elif kind == "dtype":
                nisa.sendrecv(src=t, dst=nl.ndarray((4, 4), nl.int32), send_to_rank=1, recv_from_rank=1, pipe_id=0)
            elif kind == "shape":
                nisa.sendrecv(src=t, dst=nl.ndarray((4, 2), nl.float32), send_to_rank=1, recv_from_rank=1, pipe_id=0)
            elif kind == "hbm":
                nisa.sendrecv(src=t, dst=out, send_to_rank=1, recv_from_rank=1, pipe_id=0)
            elif kind == "gpsimd_dma":
                big = nl.ndarray((4, 512), nl.float32)
                nisa.sendrecv(src=big, dst=big, send_to_rank=1, recv_from_rank=1, pipe_id=0,
                              dma_engine=nisa.dma_engine.gpsimd_dma)
            elif kind == "deadlock":
                if nl.program_id(0) == 0:
                    nisa.sendrecv(src=t, dst=t, send_to_rank=1, recv_from_rank=1, pipe_id=0)
            elif kind == "barrier_hbm":
                nisa.core_barrier(data=t, cores=(0, 1))
            elif kind == "barrier_cores":
                nisa.core_barrier(data=out, cores=(0, 2))
            return out
        return nki.jit(k)[2]
    for kind, words in [("rank", "0 or 1"), ("dtype", "same dtype"), ("shape", "same shape"), ("hbm", "SBUF"),
                        ("gpsimd_dma", "1024 bytes"), ("deadlock", "matching call"),
                        ("barrier_hbm", "shared HBM"), ("barrier_cores", r"\(0, 1\)")]:
        with pytest.raises(ConstraintError, match=words):
            nki.simulate(bad(kind), target="trn2")(a)


def test_spmd_grid_without_exchange_runs_as_before():
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        i = nl.program_id(0)
        t = nl.ndarray((32, 4), a.dtype)
        nisa.dma_copy(dst=t, src=a[i * 32:(i + 1) * 32, :])
        nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=float(i))
        nisa.dma_copy(dst=out[i * 32:(i + 1) * 32, :], src=t)
        return out
    a = np.zeros((128, 4), np.float32)
    got = nki.simulate(k[4], target="trn2")(a)
    np.testing.assert_array_equal(got[:, 0], np.repeat(np.arange(4, dtype=np.float32), 32))
