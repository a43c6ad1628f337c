"""nki.collectives with the programs of ``kernel[n]`` as ranks (collectives.py); references are numpy."""
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.collectives as ncc
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError


def _kernel(kind, n_ranks, groups=None, **kw):
    @nki.jit
    def k(a):
        r = nl.program_id(0)
        rows = a.shape[0] // n_ranks
        mine = nl.ndarray((rows, a.shape[1]), a.dtype, buffer=nl.private_hbm)
        nisa.dma_copy(dst=mine, src=a[r * rows:(r + 1) * rows, :])
        group = ncc.ReplicaGroup(groups or [list(range(n_ranks))])
        if kind == "all_gather_hbm":
            res = nl.ndarray((rows * len(group.groups[0]), a.shape[1]), a.dtype, buffer=nl.private_hbm)
            ncc.all_gather(srcs=[mine], dsts=[res], replica_group=group, collective_dim=0)
        elif kind == "all_gather_sbuf_dim1":
            s = nl.ndarray((rows, a.shape[1]), a.dtype)
            nisa.dma_copy(dst=s, src=mine)
            res_sb = nl.ndarray((rows, a.shape[1] * n_ranks), a.dtype)
            ncc.all_gather(srcs=[s], dsts=[res_sb], replica_group=group, collective_dim=1)
            res = nl.ndarray((rows, a.shape[1] * n_ranks), a.dtype, buffer=nl.private_hbm)
            nisa.dma_copy(dst=res, src=res_sb)
        elif kind == "all_reduce":
            res = nl.ndarray((rows, a.shape[1]), a.dtype, buffer=nl.private_hbm)
            ncc.all_reduce(srcs=[mine], dsts=[res], replica_group=group, op=kw.get("op", nl.add))
        elif kind == "reduce_scatter":
            res = nl.ndarray((rows // n_ranks, a.shape[1]), a.dtype, buffer=nl.private_hbm)
            ncc.reduce_scatter(srcs=[mine], dsts=[res], replica_group=group, collective_dim=0, op=nl.maximum)
        elif kind == "all_to_all":
            res = nl.ndarray((rows, a.shape[1]), a.dtype, buffer=nl.private_hbm)
            ncc.all_to_all(srcs=[mine], dsts=[res], replica_group=group, collective_dim=0)
        elif kind == "permute":
            res = nl.ndarray((rows, a.shape[1]), a.dtype, buffer=nl.private_hbm)
            nisa.dma_copy(dst=res, src=mine)
            ncc.collective_permute(srcs=[mine], dsts=[res], source_target_pairs=kw["pairs"])
        elif kind == "rank_id":
            res = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
            nisa.register_store(res, ncc.rank_id())
        out = nl.ndarray((n_ranks,) + tuple(res.shape), res.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out[r], src=res)
        return out
    return k[n_ranks]


A = np.arange(8 * 4, dtype=np.float32).reshape(8, 4)


def test_all_gather_hbm_and_sbuf():
    got = nki.simulate(_kernel("all_gather_hbm", 2), target="trn2")(A)
    np.testing.assert_array_equal(got, np.stack([A, A]))
    got = nki.simulate(_kernel("all_gather_sbuf_dim1", 2), target="trn2")(A)
    want = np.concatenate([A[:4], A[4:]], axis=1)
    np.testing.assert_array_equal(got, np.stack([want, want]))
    got = nki.simulate(_kernel("all_gather_hbm", 4, groups=[[0, 1], [2, 3]]), target="trn2")(A)
    np.testing.assert_array_equal(got[0], A[0:4])
    np.testing.assert_array_equal(got[3], A[4:8])


def test_all_reduce_reduce_scatter_all_to_all_permute():
    got = nki.simulate(_kernel("all_reduce", 2), target="trn2")(A)
    np.testing.assert_array_equal(got, np.stack([A[:4] + A[4:]] * 2))
    got = nki.simulate(_kernel("all_reduce", 2, op=nl.minimum), target="trn2")(A)
    np.testing.assert_array_equal(got, np.stack([np.minimum(A[:4], A[4:])] * 2))
    got = nki.simulate(_kernel("reduce_scatter", 2), target="trn2")(A)
    m = np.maximum(A[:4], A[4:])
    np.testing.assert_array_equal(got, np.stack([m[:2], m[2:]]))
    got = nki.simulate(_kernel("all_to_all", 2), target="trn2")(A)
    np.testing.assert_array_equal(got, np.stack([np.concatenate([A[0:2], A[4:6]]), np.concatenate([A[2:4], A[6:8]])]))
    got = nki.simulate(_kernel("permute", 2, pairs=[(0, 1)]), target="trn2")(A)
    np.testing.assert_array_equal(got, np.stack([A[:4], A[:4]]))       # rank 0 is no target: keeps its own
    got = nki.simulate(_kernel("rank_id", 2), target="trn2")(A)
    assert got.reshape(-1).tolist() == [0, 1]


def test_collective_rules():
    with pytest.raises(ConstraintError, match="several cores"):
        nki.simulate(_kernel("all_reduce", 2).fn, target="trn2")(A)        # launched without a grid
    with pytest.raises(ConstraintError, match="do not overlap"):
        nki.simulate(_kernel("all_reduce", 2, groups=[[0, 1], [1]]), target="trn2")(A)
    with pytest.raises(ConstraintError, match="nl.add, nl.minimum or nl.maximum"):
        nki.simulate(_kernel("all_reduce", 2, op=nl.multiply), target="trn2")(A)
    with pytest.raises(ConstraintError, match="each target once"):
        nki.simulate(_kernel("permute", 2, pairs=[(0, 1), (1, 1)]), target="trn2")(A)
    with pytest.raises(ConstraintError, match="matching call"):
        nki.simulate(_deadlock(), target="trn2")(A)


def _deadlock():
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        if nl.program_id(0) == 0:
            ncc.all_reduce(srcs=[a], dsts=[out], replica_group=ncc.ReplicaGroup([[0, 1]]), op=nl.add)
        return out
    return k[2]
