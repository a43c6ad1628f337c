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
