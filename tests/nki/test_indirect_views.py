"""``NkiTensor.vector_select`` and ``select`` with a tensor index (indirect_views.py). The two kernels
first are the NKI access-pattern deep dive's examples (``nki/deep-dives/nki-aps.rst``, aws-neuron-sdk
81ce03a); references are numpy indexing written here."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki.runtime import run_context


def gather_rows(A):
    # A has shape (128, 512) in HBM. Gather 64 rows chosen at runtime.
    offsets = nl.ndarray((64, 1), nl.int32, nl.sbuf)
    nisa.iota(offsets, [[1, 1]], 0, 2)        # e.g. rows 0, 2, 4, ...

    # partition p reads row offsets[p]; result has shape (64, 512)
    src = A.vector_select(0, offsets)

    result = nl.ndarray((64, 512), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(src=src, dst=result[...])
    return result


def scalar_dynamic_select(A):
    # A has shape (4, 128, 512): four (128, 512) batches in HBM.
    # We want the batch at a runtime index held in SBUF.
    batch_idx = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.memset(batch_idx, value=3)

    src = A.select(0, batch_idx)   # src has shape (128, 512)

    result = nl.ndarray((128, 512), A.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(src=src, dst=result[...])
    return result


@pytest.mark.parametrize("target", ["trn1", "trn2", "trn3"])
def test_deep_dive_examples(target):
    a = np.random.default_rng(0).standard_normal((128, 512)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate(nki.jit(gather_rows), target=target)(a), a[0::2])
    b = np.random.default_rng(1).standard_normal((4, 128, 512)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate(nki.jit(scalar_dynamic_select), target=target)(b), b[3])


def _gather_kernel(rows_idx_shape, view=None):
    @nki.jit
    def k(a, idx):
        ix = nl.ndarray(idx.shape, idx.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=ix, src=idx)
        src = (a if view is None else a[view]).vector_select(0, ix)
        res = nl.ndarray(src.shape, a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=res, src=src)
        out = nl.ndarray(src.shape, a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=res)
        return out
    return k


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 40), rest=st.lists(st.integers(1, 6), min_size=1, max_size=3),
       p=st.integers(1, 128), idx_dtype=st.sampled_from([np.int32, np.uint32, np.int16]), seed=st.integers(0, 999))
def test_property_vector_select_gathers_rows(rows, rest, p, idx_dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal([rows] + rest).astype(np.float32)
    idx = rng.integers(0, rows, (p, 1)).astype(idx_dtype)
    got = nki.simulate(_gather_kernel(idx.shape), target="trn2")(a, idx)
    assert got.shape == (p,) + tuple(rest)
    np.testing.assert_array_equal(got, a[idx[:, 0].astype(np.int64)])


def test_vector_select_on_a_column_view_and_the_docstring_shape():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((64, 32)).astype(np.float32)
    idx = rng.integers(0, 64, (16, 1)).astype(np.int32)
    got = nki.simulate(_gather_kernel(idx.shape, view=(slice(None), slice(8, 24))), target="trn2")(a, idx)
    np.testing.assert_array_equal(got, a[idx[:, 0], 8:24])
    with run_context("trn2"):      # the docstring's example: (64, 128, 8) with 128 offsets -> (128, 128, 8)
        hbm_t = nl.ndarray((64, 128, 8), dtype=nl.float32, buffer=nl.shared_hbm)
        offsets = nl.ndarray((128, 1), dtype=nl.int32, buffer=nl.sbuf)
        v = hbm_t.vector_select(0, offsets)
        assert v.shape == (128, 128, 8) and v.is_indirect()


def test_vector_select_as_a_dma_destination_scatters_rows():
    @nki.jit
    def k(a, idx):
        ix = nl.ndarray(idx.shape, idx.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=ix, src=idx)
        rows = nl.ndarray((4, 8), a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=rows, src=a[0:4, :])
        out = nl.ndarray((10, 8), a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=a)
        nisa.dma_copy(dst=out.vector_select(0, ix), src=rows)
        return out

    a = np.arange(80, dtype=np.float32).reshape(10, 8)
    idx = np.array([[9], [5], [2], [7]], np.int32)
    want = a.copy()
    want[idx[:, 0]] = a[0:4]
    np.testing.assert_array_equal(nki.simulate(k, target="trn2")(a, idx), want)


def test_out_of_bounds_offsets_raise_or_are_skipped():
    def make(mode):
        @nki.jit
        def k(a, idx):
            ix = nl.ndarray(idx.shape, idx.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=ix, src=idx)
            res = nl.ndarray((3, 4), a.dtype, buffer=nl.sbuf)
            nisa.memset(res, value=-1.0)
            nisa.dma_copy(dst=res, src=a.vector_select(0, ix), oob_mode=mode)
            out = nl.ndarray((3, 4), a.dtype, buffer=nl.shared_hbm)
            nisa.dma_copy(dst=out, src=res)
            return out
        return k

    a = np.arange(20, dtype=np.float32).reshape(5, 4)
    idx = np.array([[1], [5], [0]], np.int32)
    with pytest.raises(ConstraintError) as e:
        nki.simulate(make(nisa.oob_mode.error), target="trn2")(a, idx)
    assert e.value.param == "src" and "inside the tensor" in e.value.rule
    got = nki.simulate(make(nisa.oob_mode.skip), target="trn2")(a, idx)
    np.testing.assert_array_equal(got, [a[1], [-1] * 4, a[0]])


@pytest.mark.parametrize("where", ["hbm", "sbuf", "register"])
def test_dynamic_select_of_a_middle_dim(where):
    @nki.jit
    def k(a, i):
        idx = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=idx, src=i)
        if where == "sbuf":
            t = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=a)
        else:
            t = a
        if where == "register":         # "a runtime index supplied as an SBUF tensor or a register"
            reg = nisa.register_alloc()
            nisa.register_load(reg, idx)
            idx = reg
        src = t.select(1, idx)
        out = nl.ndarray(src.shape, a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=src)
        return out

    a = np.random.default_rng(3).standard_normal((16, 6, 10)).astype(np.float32)
    for j in (0, 4, 5):
        got = nki.simulate(k, target="trn2")(a, np.array([[j]], np.int32))
        np.testing.assert_array_equal(got, a[:, j, :])


def test_indirect_view_rules(run):
    hbm = nl.ndarray((8, 16), nl.float32, buffer=nl.shared_hbm)
    sb = nl.ndarray((8, 4, 16), nl.float32, buffer=nl.sbuf)
    ix = nl.ndarray((8, 1), nl.int32, buffer=nl.sbuf)
    one = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)

    def bad(api, param, rule, fn):
        with pytest.raises(ConstraintError) as e:
            fn()
        assert e.value.api == api and e.value.param == param and rule in e.value.rule, e.value

    vs, sel = "NkiTensor.vector_select", "NkiTensor.select"
    bad(vs, "dim", "0", lambda: hbm.vector_select(1, ix))
    bad(vs, "self", "HBM", lambda: sb.vector_select(0, ix))
    bad(vs, "vector_offset", "SBUF", lambda: hbm.vector_select(0, nl.ndarray((8, 1), nl.int32, buffer=nl.psum)))
    bad(vs, "vector_offset", "SBUF", lambda: hbm.vector_select(0, hbm))
    bad(vs, "vector_offset", "integer", lambda: hbm.vector_select(0, nl.ndarray((8, 1), nl.float32)))
    bad(vs, "vector_offset", "(num_partitions, 1)", lambda: hbm.vector_select(0, nl.ndarray((8, 2), nl.int32)))
    bad(vs, "self", "one dynamic select", lambda: hbm.vector_select(0, ix).vector_select(0, ix))
    bad(vs, "self", "one dynamic select", lambda: hbm.ap([[16, 8], [1, 16]], vector_offset=ix).vector_select(0, ix))
    bad(sel, "self", "one dynamic select", lambda: hbm.vector_select(0, ix).select(1, one))
    bad(sel, "dim", "partition dim", lambda: sb.select(0, one))
    bad(sel, "index", "one element", lambda: sb.select(1, ix))
    bad(sel, "index", "SBUF", lambda: sb.select(1, nl.ndarray((1, 1), nl.int32, buffer=nl.shared_hbm)))
    bad(sel, "index", "integer", lambda: sb.select(1, nl.ndarray((1, 1), nl.float32)))
    bad(sel, "dim", "a dim of the 3-d tensor", lambda: sb.select(3, one))
    bad(sel, "index", "an int, or a one-element SBUF tensor or a register", lambda: sb.select(1, 1.0))
    # a vector_select view keeps its dim 0 whole and outermost (the stub's "After vector_select" rules)
    v = hbm.vector_select(0, ix)
    bad("NkiTensor.slice", "dim", "indirect dim 0", lambda: v.slice(0, 0, 4))
    bad("NkiTensor.permute", "dims", "indirect dim 0", lambda: v.permute(1, 0))
    bad("NkiTensor.expand_dim", "dim", "indirect dim 0", lambda: v.expand_dim(0))
    bad("NkiTensor.reshape_dim", "dim", "indirect dim 0", lambda: v.reshape_dim(0, (4, 2)))
    bad("NkiTensor.flatten_dims", "start_dim", "indirect dim 0", lambda: v.flatten_dims(0, 1))
    bad("NkiTensor.select", "dim", "indirect dim 0", lambda: v.select(0, 1))
    bad("NkiTensor.squeeze_dim", "dim", "indirect dim 0",
        lambda: nl.ndarray((8, 16), nl.float32, buffer=nl.shared_hbm).vector_select(
            0, nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)).squeeze_dim(0))
    # an .ap() indirect pattern still has no view methods, and only the DMA resolves an indirect view
    bad("NkiTensor.slice", "self", "static view",
        lambda: hbm.ap([[16, 8], [1, 16]], vector_offset=ix).slice(1, 0, 8))
    dst = nl.ndarray((8, 16), nl.float32, buffer=nl.sbuf)
    bad("nisa.tensor_copy", "src", "static access pattern", lambda: nisa.tensor_copy(dst=dst, src=sb.select(1, one)))


def test_view_methods_on_select_views_match_numpy():
    """The docs allow view methods on the other dims of a vector_select / dynamic select view."""
    @nki.jit
    def k(a, idx, j):
        ix = nl.ndarray(idx.shape, idx.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=ix, src=idx)
        jj = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=jj, src=j)
        views = [a.vector_select(0, ix).slice(2, 1, 5).permute(0, 2, 1),       # (P, 4, 3)
                 a.vector_select(0, ix).flatten_dims(1, 2).expand_dim(1),       # (P, 1, 18)
                 a.select(1, jj).reshape_dim(1, (2, 3))]                        # (10, 2, 3)
        outs = []
        for v in views:
            assert v.is_indirect()
            s = nl.ndarray(v.shape, a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=s, src=v)
            o = nl.ndarray(v.shape, a.dtype, buffer=nl.shared_hbm)
            nisa.dma_copy(dst=o, src=s)
            outs.append(o)
        return tuple(outs)

    a = np.random.default_rng(4).standard_normal((10, 3, 6)).astype(np.float32)
    idx = np.array([[7], [2], [2], [9], [0]], np.int32)
    got = nki.simulate(k, target="trn2")(a, idx, np.array([[2]], np.int32))
    rows = a[idx[:, 0]]
    np.testing.assert_array_equal(got[0], rows[:, :, 1:5].transpose(0, 2, 1))
    np.testing.assert_array_equal(got[1], rows.reshape(5, 1, 18))
    np.testing.assert_array_equal(got[2], a[:, 2, :].reshape(10, 2, 3))
