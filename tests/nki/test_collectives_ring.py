"""nki.collectives' ring collectives (collectives_ring.py): collective_permute_implicit, its _reduce and
current_processing_rank_id, with the programs of ``kernel[n]`` as ranks; references are numpy rolls
written here from the docstrings ("sends to its successor and receives from its predecessor")."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki as nki
import npusim.nki.collectives as ncc
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError


def _kernel(n, groups, channels=1, where="hbm", reduce_op=None, steps=0):
    @nki.jit
    def k(a, b):
        r = nl.program_id(0)
        group = ncc.ReplicaGroup(groups)
        rows = a.shape[1]
        buf = nl.private_hbm if where == "hbm" else nl.sbuf
        outs = []
        srcs, srcs1, dsts = [], [], []
        for c in range(channels):
            s = nl.ndarray((rows, a.shape[2]), a.dtype, buffer=buf)
            nisa.dma_copy(dst=s, src=a[r * channels + c])
            s1 = nl.ndarray((rows, a.shape[2]), a.dtype, buffer=buf)
            nisa.dma_copy(dst=s1, src=b[r * channels + c])
            d = nl.ndarray((rows, a.shape[2]), a.dtype, buffer=buf)
            srcs.append([s]), srcs1.append([s1]), dsts.append([d])
        if reduce_op is None:
            ncc.collective_permute_implicit(srcs_by_channel=srcs, dsts_by_channel=dsts, replica_group=group,
                                            channel_ids=list(range(channels)))
        else:
            ncc.collective_permute_implicit_reduce(srcs0_by_channel=srcs, srcs1_by_channel=srcs1,
                                                   dsts_by_channel=dsts, replica_group=group, op=reduce_op,
                                                   channel_ids=list(range(channels)))
        out = nl.ndarray((n * channels, rows, a.shape[2]), a.dtype, buffer=nl.shared_hbm)
        for c in range(channels):
            nisa.dma_copy(dst=out[r * channels + c], src=dsts[c][0])
        ids = nl.ndarray((n, steps + 1), nl.int32, buffer=nl.shared_hbm)
        for i in range(steps + 1):
            t = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
            nisa.register_store(t, ncc.collective_permute_implicit_current_processing_rank_id(
                iteration_id=i, replica_group=group))
            nisa.dma_copy(dst=ids[r:r + 1, i:i + 1], src=t)
        return out, ids
    return k[n]


def _pred(groups, n):
    pred = {}
    for g in groups:
        for i, r in enumerate(g):
            pred[r] = g[(i - 1) % len(g)]
    return pred


@pytest.mark.parametrize("where", ["hbm", "sbuf"])
def test_permute_implicit_moves_each_rank_to_its_successor(where):
    n = 4
    a = np.arange(n * 8 * 4, dtype=np.float32).reshape(n, 8, 4)
    out, ids = nki.simulate(_kernel(n, [[0, 1, 2, 3]], where=where, steps=3), target="trn2")(a, a)
    for r in range(n):
        np.testing.assert_array_equal(out[r], a[(r - 1) % n])
        assert list(ids[r]) == [r, (r - 1) % n, (r - 2) % n, (r - 3) % n]      # own, then predecessors
    ev = [e for e in nki.last_run().trace.events if e.name == "nki.collectives.collective_permute_implicit"]
    assert len(ev) == n and all(e.engine.startswith("dma") for e in ev)


@settings(max_examples=10, deadline=None)
@given(perm=st.permutations(range(4)), split=st.booleans(), channels=st.integers(1, 3), seed=st.integers(0, 99))
def test_property_rings_follow_the_group_lists(perm, split, channels, seed):
    groups = [list(perm[:2]), list(perm[2:])] if split else [list(perm)]
    a = np.random.default_rng(seed).standard_normal((4 * channels, 4, 3)).astype(np.float32)
    out, ids = nki.simulate(_kernel(4, groups, channels=channels, steps=2), target="trn2")(a, a)
    pred = _pred(groups, 4)
    for r in range(4):
        for c in range(channels):
            np.testing.assert_array_equal(out[r * channels + c], a[pred[r] * channels + c])
        assert ids[r, 1] == pred[r] and ids[r, 2] == pred[pred[r]]


@pytest.mark.parametrize("op, fn", [(nl.add, np.add), (nl.maximum, np.maximum), (nl.minimum, np.minimum)])
def test_permute_implicit_reduce_sends_the_reduced_sources(op, fn):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3 * 2, 4, 5)).astype(np.float32)
    b = rng.standard_normal((3 * 2, 4, 5)).astype(np.float32)
    out, _ = nki.simulate(_kernel(3, [[0, 2, 1]], channels=2, reduce_op=op), target="trn2")(a, b)
    pred = _pred([[0, 2, 1]], 3)
    for r in range(3):
        for c in range(2):
            np.testing.assert_array_equal(out[r * 2 + c], fn(a[pred[r] * 2 + c], b[pred[r] * 2 + c]))


def test_ring_rules():
    def run(body, n=2):
        @nki.jit
        def k(a):
            body()
            return a
        nki.simulate(k[n], target="trn2")(np.zeros((2, 2), np.float32))

    group = ncc.ReplicaGroup([[0, 1]])

    def bad(param, rule, body, n=2):
        with pytest.raises(ConstraintError) as e:
            run(body, n)
        assert e.value.param == param and rule in e.value.rule, e.value

    def tiles(c=1, k=1):
        return [[nl.ndarray((4, 4), nl.float32, buffer=nl.private_hbm) for _ in range(k)] for _ in range(c)]

    bad("channel_ids", "consecutive", lambda: ncc.collective_permute_implicit(tiles(), tiles(), group, [1]))
    bad("channel_ids", "at most 4", lambda: ncc.collective_permute_implicit(tiles(5), tiles(5), group,
                                                                            list(range(5))))
    bad("srcs_by_channel", "one list per channel",
        lambda: ncc.collective_permute_implicit(tiles(1), tiles(2), group, [0, 1]))
    bad("srcs_by_channel", "exactly one tensor", lambda: ncc.collective_permute_implicit(tiles(1, 2), tiles(), group))
    bad("op", "nl.add, nl.minimum or nl.maximum",
        lambda: ncc.collective_permute_implicit_reduce(tiles(), tiles(), tiles(), group, nl.multiply))
    bad("srcs", "HBM", lambda: ncc.collective_permute_implicit(
        [[nl.ndarray((4, 4), nl.float32, buffer=nl.sbuf)]], tiles(), group))
    bad("replica_group", "groups of distinct ranks", lambda: ncc.collective_permute_implicit(
        tiles(), tiles(), ncc.ReplicaGroup([[0, 0]])))
    bad("iteration_id", "non-negative", lambda: ncc.collective_permute_implicit_current_processing_rank_id(-1, group))
    bad("channel_id", "0..3", lambda: ncc.collective_permute_implicit_current_processing_rank_id(0, group, 4))
    bad("grid", "several cores", lambda: ncc.collective_permute_implicit(tiles(), tiles(), group), n=1)
