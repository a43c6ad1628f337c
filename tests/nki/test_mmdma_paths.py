"""The per-call paths of nc_matmul and dma_copy place exactly what the general ones do, and the matmul's
PSUM bookkeeping (the "written by nc_matmul" map kept across launches, the covering first write on
reused bytes) keeps every warning and value.

Equivalence: each test runs one random instruction sequence twice, once with the fast paths
(Run.issue_tiles, Run.issue_dma) and once with them replaced by the general composition written here
(Run.issue; Run.ready_ns + DmaEngines.earliest + Run.issue + DmaEngines.reserve, as isa._dma_place
does), and compares every event."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.nki import blas, run_context
from npusim.nki.runtime import NkiInstruction, Run


def _issue_tiles_general(self, api, engine, cycles, reads, dst, elements, args, not_before_ns=0.0):
    return self.issue(api, engine, cycles, reads=list(reads), writes=[dst], args=args, elements=elements,
                      not_before_ns=not_before_ns)


def _issue_dma_general(self, api, queue, cycles, src, dst, elements, groups, data_ns):
    fixed, queue = self.chip.dma_fixed_ns, self.dma_queue() if queue is None else queue    # (None: its pick)
    reads, writes = [src], [dst]
    ready = self.ready_ns(queue, reads=reads, writes=writes)
    data_start = self.dma_engines.earliest(groups, ready + fixed, data_ns)
    ins = self.issue(api, queue, cycles, reads=reads, writes=writes, elements=elements,
                     not_before_ns=data_start - fixed)
    self.dma_engines.reserve(groups, ins.event.end_ns - data_ns, data_ns)
    return ins


def _events(run):
    # (not the source line: the general composition here is outside npusim, so it would be the caller)
    return [(e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.nbytes, e.elements, e.args)
            for e in run.trace.events]


def _random_program(seed: int, target: str):
    """Loads, stores and matmuls at random partitions and columns (HBM <-> SBUF, SBUF -> PSUM -> SBUF)."""
    rng = np.random.default_rng(seed)
    with run_context(target) as run:
        hbm = nl.ndarray((128, 256), nl.float32, buffer=nl.shared_hbm)
        hbm.write(rng.standard_normal((128, 256)).astype(np.float32))
        out = nl.ndarray((128, 256), nl.float32, buffer=nl.shared_hbm)
        out.write(np.zeros((128, 256), np.float32))
        sb = nl.ndarray((128, 256), nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(sb, hbm)
        for _ in range(40):
            kind = rng.integers(0, 4)
            p0, n = int(rng.integers(0, 96)), int(rng.integers(1, 33))
            c0, w = int(rng.integers(0, 200)), int(rng.integers(1, 57))
            if kind == 0:
                nisa.dma_copy(sb[p0:p0 + n, c0:c0 + w], hbm[p0:p0 + n, c0:c0 + w])
            elif kind == 1:
                nisa.dma_copy(out[p0:p0 + n, c0:c0 + w], sb[p0:p0 + n, c0:c0 + w])
            elif kind == 2:
                t = nl.load(hbm[p0:p0 + n, c0:c0 + w])
                nl.store(out[p0:p0 + n, c0:c0 + w], t)
            else:
                k, m = int(rng.integers(1, 129)), int(rng.integers(1, 129))
                ps = nl.ndarray((m, w), nl.float32, buffer=nl.psum)
                nisa.nc_matmul(ps, sb[0:k, 0:m], sb[0:k, c0:c0 + w])
                if rng.integers(0, 2):
                    nisa.nc_matmul(ps, sb[0:k, 0:m], sb[0:k, c0:c0 + w])         # accumulates
                nisa.tensor_copy(sb[0:m, c0:c0 + w], ps)
        return _events(run), out.numpy()


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), target=st.sampled_from(["trn1", "trn2", "trn3"]))
def test_fast_issue_paths_place_what_the_general_ones_place(seed, target):
    fast_events, fast_out = _random_program(seed, target)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(Run, "issue_tiles", _issue_tiles_general)
        m.setattr(Run, "issue_dma", _issue_dma_general)
        events, out = _random_program(seed, target)
    assert fast_events == events
    np.testing.assert_array_equal(fast_out, out)


def test_issue_dma_answers_like_ready_then_issue_after_a_conflicting_write():
    """A store waiting for the compute that writes its tile starts when that compute ends (and after the
    DMA engines' data phase fits), as ready_ns + issue would place it."""
    with run_context("trn2") as run:
        sb = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
        nisa.memset(sb, 2.0)
        out = nl.ndarray((128, 64), nl.float32, buffer=nl.shared_hbm)
        ins = nisa.dma_copy(out, sb)
        writer = [e for e in run.trace.events if e.name == "nisa.memset"][-1]
        assert ins.event.start_ns >= writer.end_ns
        assert isinstance(ins, NkiInstruction) and ins.event.engine.startswith("dma-q")
        assert out.tv.memory.written
        np.testing.assert_array_equal(out.numpy(), 2.0)


# ---- nc_matmul's PSUM bookkeeping ----

def _tile(values):
    t = nl.ndarray(values.shape, nl.float32, buffer=nl.sbuf)
    t.write(values)
    return t


def test_matmul_marks_of_one_launch_do_not_make_the_next_launch_silent():
    """The map stays with the pooled PSUM: a launch that memsets a tile where the previous launch's
    matmuls wrote and accumulates onto it still gets the warning."""
    a, b = np.eye(4, dtype=np.float32), np.ones((4, 8), np.float32)

    @nki.jit
    def fill(x, y):
        out = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
        ps = nl.ndarray((4, 8), nl.float32, buffer=nl.psum)
        nisa.nc_matmul(ps, nl.load(x), nl.load(y))
        nisa.nc_matmul(ps, nl.load(x), nl.load(y))
        sb = nl.ndarray((4, 8), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(sb, ps)
        nl.store(out, sb)
        return out

    @nki.jit
    def onto_memset(x, y):
        out = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
        ps = nl.ndarray((4, 8), nl.float32, buffer=nl.psum)
        nisa.memset(ps, 1.0)
        nisa.nc_matmul(ps, nl.load(x), nl.load(y))
        sb = nl.ndarray((4, 8), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(sb, ps)
        nl.store(out, sb)
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(nki.simulate(fill, target="trn2")(a, b), 2.0)
    psum = nki.last_run().psum
    with pytest.warns(nisa.PsumAccumulateWarning, match="onto 32 PSUM element"):
        np.testing.assert_array_equal(nki.simulate(onto_memset, target="trn2")(a, b), 2.0)
    assert nki.last_run().psum is psum            # the same pooled PSUM (and tile bytes) as the first launch


def test_a_view_marked_whole_keeps_the_count_of_the_elements_no_matmul_wrote():
    a, b8 = np.eye(4, dtype=np.float32), np.ones((4, 8), np.float32)
    with run_context("trn2"):
        ps = nl.ndarray((4, 16), nl.float32, buffer=nl.psum)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            nisa.nc_matmul(ps[:, 0:8], _tile(a), _tile(b8))
            nisa.nc_matmul(ps[:, 0:8], _tile(a), _tile(b8))          # marked whole: no map view
        nisa.memset(ps, 1.0)
        with pytest.warns(nisa.PsumAccumulateWarning, match="onto 32 PSUM element"):   # columns 8..15
            nisa.nc_matmul(ps, _tile(a), _tile(np.ones((4, 16), np.float32)), accumulate=True)
        np.testing.assert_array_equal(ps.numpy(), 2.0)


def _on_freed_psum(fill):
    """A new (4, 16) PSUM tile on bytes of freed tiles that ``fill`` wrote (every bank used once)."""
    offsets = set()
    for _ in range(8):
        old = nl.ndarray((4, 16), nl.float32, buffer=nl.psum)
        fill(old)
        offsets.add(old.tv.offset)
        del old
    ps = nl.ndarray((4, 16), nl.float32, buffer=nl.psum)
    assert ps.tv.offset in offsets and ps.stale
    return ps


def test_a_partial_first_matmul_on_reused_psum_bytes_overwrites_only_its_view():
    """A view that does not cover its new tile still clears the freed tile's init map first: the
    matmul overwrites its columns, the rest of the tile reads as never written."""
    from npusim.core.errors import UninitializedReadWarning
    a, b = np.eye(4, dtype=np.float32), np.full((4, 8), 3.0, np.float32)
    with run_context("trn2"):
        ps = _on_freed_psum(lambda old: nisa.memset(old, 5.0))
        nisa.nc_matmul(ps[:, 0:8], _tile(a), _tile(b))
        np.testing.assert_array_equal(ps[:, 0:8].numpy(), 3.0)
        with pytest.warns(UninitializedReadWarning):
            rest = ps[:, 8:16].numpy()
        assert np.isnan(rest).all()


def test_a_covering_first_matmul_on_reused_psum_bytes_overwrites_and_fills_the_tile():
    a, b = np.eye(4, dtype=np.float32), np.full((4, 16), 3.0, np.float32)
    with run_context("trn2"):
        ps = _on_freed_psum(lambda old: nisa.memset(old[:, 0:8], 5.0))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            nisa.nc_matmul(ps, _tile(a), _tile(b))
            np.testing.assert_array_equal(ps.numpy(), 3.0)
            nisa.nc_matmul(ps[:, 4:12], _tile(a), _tile(b[:, 0:8]))      # the group goes on: adds
        np.testing.assert_array_equal(ps.numpy()[:, 4:12], 6.0)
        np.testing.assert_array_equal(ps.numpy()[:, 0:4], 3.0)


# ---- BLAS threads ----

def test_blas_thread_calls_only_above_the_single_thread_size(monkeypatch):
    if blas._set is None:
        pytest.skip("numpy's OpenBLAS was not found: matmul is a plain @")
    calls = []
    real_set = blas._set
    monkeypatch.setattr(blas, "_get", lambda: 2)
    monkeypatch.setattr(blas, "_set", lambda n: calls.append(n) or real_set(real_set and 1))
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((1, 128)).astype(np.float32), rng.standard_normal((1, 16)).astype(np.float32)
    np.testing.assert_array_equal(blas.matmul(a.T, b), a.T @ b)             # 2048 multiply-adds
    assert calls == []
    a, b = rng.standard_normal((64, 64)).astype(np.float32), rng.standard_normal((64, 64)).astype(np.float32)
    np.testing.assert_array_equal(blas.matmul(a.T, b), a.T @ b)
    assert calls == [1, 2]                                                  # one thread, then restored


_SPECIALS = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -1e-45, 3.4e38, -3.4e38],
                     np.float32)


def _numpy_matmul(a, b):
    """numpy's ``a @ b`` on one OpenBLAS thread (the count changes the bits of large sgemms)."""
    with np.errstate(all="ignore"):
        if blas._set is None:
            return a @ b
        before = blas._get()
        blas._set(1)
        try:
            return a @ b
        finally:
            blas._set(before)


@settings(max_examples=40, deadline=None)
@given(k=st.sampled_from([1, 2, 3, 17, 64, 128]), m=st.integers(1, 128), n=st.integers(1, 512),
       seed=st.integers(0, 1000), specials=st.booleans())
def test_a_first_matmul_writes_the_bits_numpy_computes(k, m, n, seed, specials):
    """The overwrite computes straight into the PSUM tile (matmul's out=): bit for bit what a.T @ b
    gives in a new array (NaN payloads, signed zeros, subnormals, overflow included)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((k, m)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    if specials:
        a.flat[rng.integers(0, a.size, 3)] = rng.choice(_SPECIALS, 3)
        b.flat[rng.integers(0, b.size, 3)] = rng.choice(_SPECIALS, 3)
        b.view(np.uint32).flat[0] = 0x7FC0DEAD          # a NaN with a payload
    want = _numpy_matmul(a.T, b)
    with run_context("trn2"):
        ps = nl.ndarray((m, n), nl.float32, buffer=nl.psum)
        nisa.nc_matmul(ps, _tile(a), _tile(b))
        got = ps.numpy()
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 128), n=st.integers(1, 512), seed=st.integers(0, 10_000),
       nan_a=st.booleans(), nan_b=st.booleans(), scale=st.integers(-45, 38))
def test_a_contraction_of_one_is_numpys_matmul_bit_for_bit(m, n, seed, nan_a, nan_b, scale):
    """blas.matmul's K = 1 path (broadcast product plus zero) against numpy's matmul: -0 products, 0 * inf,
    overflow, subnormal products, NaN payloads in one operand or both (numpy's loop then)."""
    rng = np.random.default_rng(seed)
    with np.errstate(all="ignore"):
        a = (rng.standard_normal((m, 1)) * 10.0 ** scale).astype(np.float32)
        b = (rng.standard_normal((1, n)) * 10.0 ** (-scale // 2)).astype(np.float32)
        a.flat[rng.integers(0, m, 2)] = rng.choice(_SPECIALS, 2)
        b.flat[rng.integers(0, n, 2)] = rng.choice(_SPECIALS, 2)
        for x, on in ((a, nan_a), (b, nan_b)):
            if on:
                x.view(np.uint32).flat[rng.integers(0, x.size)] = 0x7FC00000 | int(rng.integers(1, 1 << 22))
        want = a @ b
        got = blas.matmul(a, b)
        into = np.full((m, 2 * n), 7.0, np.float32)[:, ::2]          # a strided out= view
        blas.matmul(a, b, out=into)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    np.testing.assert_array_equal(into.view(np.uint32), want.view(np.uint32))
