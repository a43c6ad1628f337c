"""nki.collectives.all_gather_v / all_to_all_v (collectives_v.py) with the programs of ``kernel[n]`` as
ranks; references are numpy written here from the docstrings' layout rules."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki as nki
import npusim.nki.collectives as ncc
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError


def _kernel(kind, n, dst_elems, groups=None, meta_in_sbuf=False, **kw):
    """Rank r sends a[r] with metadata meta[r]; returns every rank's dst and metadata."""
    @nki.jit
    def k(a, meta, fill):
        r = nl.program_id(0)
        src = nl.ndarray((1, a.shape[1]), a.dtype, buffer=nl.private_hbm)
        nisa.dma_copy(dst=src, src=a[r:r + 1, :])
        if meta_in_sbuf:
            m = nl.ndarray(tuple(meta.shape[1:]), meta.dtype, buffer=nl.sbuf)     # (1, rows, ranks)
        else:
            m = nl.ndarray((meta.shape[1], meta.shape[2]), meta.dtype, buffer=nl.private_hbm)
        nisa.dma_copy(dst=m, src=meta[r])
        dst = nl.ndarray((1, dst_elems), a.dtype, buffer=nl.private_hbm)
        nisa.dma_copy(dst=dst, src=fill[r:r + 1, :])       # what dst held before: kept where no chunk lands
        group = ncc.ReplicaGroup(groups or [list(range(n))])
        call = ncc.all_gather_v if kind == "gather" else ncc.all_to_all_v
        call(srcs=[src], dsts=[dst], replica_group=group, metadata_tensor=m,
             recv_counts_known=kw.get("known", False), has_rdispls=kw.get("rdispls", False))
        out = nl.ndarray((n, dst_elems), a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out[r:r + 1, :], src=dst)
        out_meta = nl.ndarray((n,) + tuple(meta.shape[1:]), meta.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out_meta[r], src=m)
        return out, out_meta
    return k[n]


def _fill(n, elems, value=-1.0):
    return np.full((n, elems), value, np.float32)


def _gather_ref(a, counts, displs, dst_before, n):
    slot = dst_before.shape[1] // n
    out = dst_before.copy()
    for r in range(n):
        chunk = a[r, displs[r]:displs[r] + counts[r]]
        out[:, r * slot:r * slot + counts[r]] = chunk      # every rank receives the same chunk
    return out


def _gather_meta(counts, displs, n, rows=3):
    meta = np.zeros((n, rows, n), np.uint32)
    meta[:, 0, 0], meta[:, 1, 0] = counts, displs
    meta[:, 0, 1:] = 999                 # only the first column of rows 0/1 is read
    meta[:, 2, :] = 77                   # row 2 is an output
    return meta


def test_all_gather_v_lays_chunks_in_equal_slots_and_writes_recv_counts():
    a = np.arange(4 * 10, dtype=np.float32).reshape(4, 10)
    counts, displs = [3, 0, 5, 1], [2, 0, 4, 9]
    meta = _gather_meta(counts, displs, 4)
    fill = _fill(4, 24)
    out, out_meta = nki.simulate(_kernel("gather", 4, 24), target="trn2")(a, meta, fill)
    np.testing.assert_array_equal(out, _gather_ref(a, counts, displs, fill, 4))
    assert (out_meta[:, 2, :] == np.array(counts, np.uint32)).all()        # per-source counts
    np.testing.assert_array_equal(out_meta[:, :2, :], meta[:, :2, :])       # inputs untouched
    ev = [e for e in nki.last_run().trace.events if e.name == "nki.collectives.all_gather_v"]
    assert len(ev) == 4 and all(e.engine.startswith("dma") for e in ev)


def test_all_gather_v_recv_counts_known_leaves_row_2_and_metadata_in_sbuf():
    a = np.arange(4 * 6, dtype=np.float32).reshape(4, 6)
    counts, displs = [1, 2, 3, 0], [0, 1, 2, 3]
    meta = _gather_meta(counts, displs, 4)
    fill = _fill(4, 12)
    out, out_meta = nki.simulate(_kernel("gather", 4, 12, known=True, meta_in_sbuf=True),
                                 target="trn3")(a, meta.reshape(4, 1, 3, 4), fill)
    np.testing.assert_array_equal(out, _gather_ref(a, counts, displs, fill, 4))
    assert (out_meta.reshape(4, 3, 4)[:, 2, :] == 77).all()


@settings(max_examples=15, deadline=None)
@given(slot=st.integers(1, 8), length=st.integers(1, 12), seed=st.integers(0, 2 ** 16))
def test_property_all_gather_v(slot, length, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((4, length)).astype(np.float32)
    counts = rng.integers(0, min(slot, length) + 1, 4)
    displs = np.array([rng.integers(0, length - c + 1) for c in counts])
    meta = _gather_meta(counts, displs, 4)
    fill = _fill(4, 4 * slot)
    out, out_meta = nki.simulate(_kernel("gather", 4, 4 * slot), target="trn2")(a, meta, fill)
    np.testing.assert_array_equal(out, _gather_ref(a, counts, displs, fill, 4))
    assert (out_meta[:, 2, :] == counts.astype(np.uint32)).all()


def _a2a_ref(a, meta, dst_before, n, rdispls):
    out = dst_before.copy()
    slot = dst_before.shape[1] // n
    for k in range(n):                   # receiver at position k
        for j in range(n):               # sender at position j
            c, d = int(meta[j, 0, k]), int(meta[j, 1, k])
            at = int(meta[k, 3, j]) if rdispls else j * slot
            out[k, at:at + c] = a[j, d:d + c]
    return out


def _a2a_meta(rng, n, length, room, rows=3):
    meta = np.zeros((n, rows, n), np.uint32)
    for j in range(n):
        for k in range(n):
            c = int(rng.integers(0, min(room, length) + 1))
            meta[j, 0, k], meta[j, 1, k] = c, int(rng.integers(0, length - c + 1))
    meta[:, 2, :] = 55
    return meta


@pytest.mark.parametrize("n", [2, 3])
def test_all_to_all_v_slots(n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, 9)).astype(np.float32)
    meta = _a2a_meta(rng, n, 9, 4)
    fill = _fill(n, 4 * n)
    out, out_meta = nki.simulate(_kernel("a2a", n, 4 * n), target="trn2")(a, meta, fill)
    np.testing.assert_array_equal(out, _a2a_ref(a, meta, fill, n, False))
    # row 2 of receiver k: what each position j sent it
    np.testing.assert_array_equal(out_meta[:, 2, :], meta[:, 0, :].T)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 2 ** 16))
def test_property_all_to_all_v_with_rdispls_on_trn3(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, 7)).astype(np.float32)
    meta = _a2a_meta(rng, n, 7, 3, rows=4)
    dst_elems = 3 * n
    for k in range(n):                   # disjoint places, packed in sender order
        at = 0
        for j in range(n):
            meta[k, 3, j] = at
            at += int(meta[j, 0, k])
    fill = _fill(n, dst_elems)
    out, out_meta = nki.simulate(_kernel("a2a", n, dst_elems, rdispls=True), target="trn3")(a, meta, fill)
    np.testing.assert_array_equal(out, _a2a_ref(a, meta, fill, n, True))
    np.testing.assert_array_equal(out_meta[:, 3, :], meta[:, 3, :])


def _raises(kind, n, dst_elems, a, meta, param, rule, target="trn2", **kw):
    with pytest.raises(ConstraintError) as e:
        nki.simulate(_kernel(kind, n, dst_elems, **kw), target=target)(a, meta, _fill(n, dst_elems))
    assert e.value.param == param and rule in e.value.rule, e.value


def test_all_gather_v_rules():
    a = np.zeros((4, 8), np.float32)
    meta = _gather_meta([1, 1, 1, 1], [0, 0, 0, 0], 4)
    _raises("gather", 4, 8, a, meta, "target", "NeuronCore-v3", target="trn1")
    _raises("gather", 4, 8, a, meta, "has_rdispls", "not supported", rdispls=True)
    _raises("gather", 4, 8, a, _gather_meta([1, 1, 1, 1], [0] * 4, 4)[:, :, :2], "replica_group",
            "exactly 4 ranks", groups=[[0, 1], [2, 3]])
    _raises("gather", 4, 8, a, _gather_meta([9, 1, 1, 1], [0] * 4, 4), "metadata_tensor", "inside src")
    _raises("gather", 4, 8, a, _gather_meta([3, 1, 1, 1], [0] * 4, 4), "metadata_tensor", "fits in dst")
    _raises("gather", 4, 9, a, meta, "dsts", "4 equal slots")
    _raises("gather", 4, 8, a, meta.astype(np.int32), "metadata_tensor", "uint32")
    _raises("gather", 4, 8, a, meta[:, :2, :], "metadata_tensor", "shape")
    _raises("gather", 4, 8, a, np.zeros((4, 3, 3), np.uint32), "metadata_tensor", "shape")


def test_all_to_all_v_rules():
    rng = np.random.default_rng(0)
    a = np.zeros((2, 8), np.float32)
    meta = _a2a_meta(rng, 2, 8, 2)
    _raises("a2a", 2, 4, a, meta, "target", "NeuronCore-v3", target="trn1")
    _raises("a2a", 2, 4, a, np.concatenate([meta, meta[:, :1]], axis=1), "has_rdispls", "trn3", rdispls=True)
    _raises("a2a", 2, 4, a, meta, "metadata_tensor", "shape", rdispls=True, target="trn3")   # needs row 3
    big = meta.copy()
    big[0, 0, 1] = 3                     # 3 elements into a 2-element slot
    big[0, 1, 1] = 0
    _raises("a2a", 2, 4, a, big, "metadata_tensor", "fits in dst")
    off = meta.copy()
    off[1, 1, 0] = 8
    off[1, 0, 0] = 1                     # elements 8..9 of an 8-element src
    _raises("a2a", 2, 4, a, off, "metadata_tensor", "inside src")
    _raises("a2a", 2, 5, a, meta, "dsts", "2 equal slots")


def test_v_collectives_need_one_hbm_tensor_of_one_dtype():
    @nki.jit
    def k(a, meta):
        r = nl.program_id(0)
        src = nl.ndarray((1, 8), nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=src, src=a[r:r + 1, :])
        m = nl.ndarray((3, 2), nl.uint32, buffer=nl.private_hbm)
        nisa.dma_copy(dst=m, src=meta[r])
        dst = nl.ndarray((1, 8), nl.float32, buffer=nl.sbuf)
        ncc.all_to_all_v(srcs=[src], dsts=[dst], replica_group=ncc.ReplicaGroup([[0, 1]]), metadata_tensor=m)
        return a

    meta = np.zeros((2, 3, 2), np.uint32)
    with pytest.raises(ConstraintError) as e:
        nki.simulate(k[2], target="trn2")(np.zeros((2, 8), np.float32), meta)
    assert e.value.param == "srcs" and "HBM" in e.value.rule

    @nki.jit
    def k2(a, meta):
        r = nl.program_id(0)
        src = nl.ndarray((1, 8), nl.float32, buffer=nl.private_hbm)
        nisa.dma_copy(dst=src, src=a[r:r + 1, :])
        m = nl.ndarray((3, 2), nl.uint32, buffer=nl.private_hbm)
        nisa.dma_copy(dst=m, src=meta[r])
        dst = nl.ndarray((1, 8), nl.bfloat16, buffer=nl.private_hbm)
        ncc.all_to_all_v(srcs=[src], dsts=[dst], replica_group=ncc.ReplicaGroup([[0, 1]]), metadata_tensor=m)
        return a

    with pytest.raises(ConstraintError) as e:
        nki.simulate(k2[2], target="trn2")(np.zeros((2, 8), np.float32), meta)
    assert e.value.param == "dsts" and "dtype of srcs" in e.value.rule
