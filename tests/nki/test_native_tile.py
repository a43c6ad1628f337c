"""native_tile's C tile birth and death (native/tile.c) against the Python reference (Run._place,
NextFitAllocator.reserve, TileBlock.release): the same sequence of allocations, deaths, releases and loop
scopes gives the same tiles slot by slot, the same blocks, cursor and high-water mark, and the same errors."""
import gc
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import alloc as _alloc, native_tile
from npusim.nki.runtime import SBUF, PSUM, run_context

from npusim.nki.tensor import NkiTensor

sys.path.insert(0, os.path.dirname(__file__))
from test_alloc_tile_build import _slots  # noqa: E402
from npusim.core.view import TensorView  # noqa: E402

native = native_tile.module()
pytestmark = pytest.mark.skipif(native is None, reason="no C compiler / Python headers, or NPUSIM_NATIVE=0")

SHAPES = [((128, 16), np.float32), ((128, 1), np.float32), ((1, 128), np.float32), ((64, 2048), np.float32),
          ((4, 3, 5), np.float16), ((128, 512), np.float32), ((2, 7), np.int8)]


def _norm(x):
    """A slot's value comparable across two runs (their memories, runs and scopes are other objects)."""
    if isinstance(x, np.ndarray):
        base = x
        while isinstance(base.base, np.ndarray):
            base = base.base
        f = x.flags
        return ("array", type(x), x.shape, x.strides, x.dtype.str, x.dtype.isnative,
                x.__array_interface__["data"][0] - base.__array_interface__["data"][0],
                (f.c_contiguous, f.f_contiguous, f.writeable, f.aligned, f.owndata, f.writebackifcopy),
                type(x.base), x.base.shape, x.base.strides, x.base.dtype.str, x.base.flags.owndata)
    name = type(x).__name__
    if name == "Memory":
        return ("memory", x.name, x.lanes, x.lane_bytes)
    if name == "Run":
        return "run"
    if name == "Scope":
        return ("scope", x.label, x.strict, x.ended)
    if name == "Evicted":
        return ("evicted", x.label, x.by)
    if isinstance(x, TensorView):
        return tuple(_norm(getattr(x, s, "<unset>")) for s in _slots(TensorView))
    return x


def _tile(t):
    return tuple((s, _norm(getattr(t, s, "<unset>"))) for s in _slots(NkiTensor))


def _state(run):
    out = []
    for region in (SBUF, PSUM):
        a = run.alloc[region]
        out.append((a.cursor, a.high, [(b.offset, b.size, b.name, b.alive, type(b).__name__) for b in a.blocks],
                    [(b.offset, b.alive) for b in a.lapsed]))
    return out


def _replay(ops, use_native: bool):
    """Run ``ops``; return every tile (to compare), the states after each step and the errors."""
    with run_context("trn2") as run:
        if not use_native:
            run._native_allocate = None
        assert (run._native_allocate is not None) == use_native
        live, every, states, errors = [], [], [], []
        for kind, pick, named, psum, n in ops:
            shape, dtype = SHAPES[pick % len(SHAPES)]
            if kind == "loop":                  # n tiles in each of two loop iterations (scopes); some kept
                for i in nl.affine_range(2):
                    for j in range(n):
                        try:
                            t = nl.ndarray(shape, dtype=dtype, buffer=nl.psum if psum else nl.sbuf,
                                           name=f"l{i}{j}" if named else "")
                        except ConstraintError as e:
                            errors.append(str(e))
                            break
                        every.append(t)
                        if j == 0:
                            live.append(t)
                        del t
            elif kind == "alloc":
                for _ in range(n):
                    try:
                        t = nl.ndarray(shape, dtype=dtype, buffer=nl.psum if psum else nl.sbuf,
                                       name="x" if named else "")
                    except ConstraintError as e:
                        errors.append(str(e))
                        break
                    live.append(t)
                    every.append(t)
                    del t
            elif kind == "die" and live:
                del live[pick % len(live)]
                every[:] = [t for t in every if any(t is x for x in live)]
            elif kind == "release" and live:
                t = live[pick % len(live)]
                for b in run.alloc[t.buffer].blocks:
                    if b() is t:
                        b.release()
                        break
                del t
            states.append(_state(run))
        return [_tile(t) for t in live], states, errors


OPS = st.lists(st.tuples(st.sampled_from(["alloc", "alloc", "loop", "die", "die", "release"]), st.integers(0, 50),
                         st.booleans(), st.booleans(), st.integers(1, 40)), min_size=1, max_size=25)


@settings(max_examples=30, deadline=None)
@given(OPS)
def test_native_place_and_death_match_python(ops):
    got = _replay(ops, True)
    want = _replay(ops, False)
    assert got == want


def test_native_fills_sbuf_and_wraps_like_python():
    """Thousands of tiles: next fit wraps around (the Python path takes over) and capacity errors match."""
    ops = [("alloc", 3, False, False, 40)] * 3 + [("die", 0, False, False, 1)] * 30 + [("alloc", 3, True, False, 40)]
    ops = ops + [("loop", 0, False, False, 40)] * 30 + [("alloc", 5, False, True, 20)]
    got, want = _replay(ops, True), _replay(ops, False)
    assert got == want and got[2]       # (some requests did not fit)


def test_native_place_keeps_blocks_sorted_when_the_collector_frees_a_block_meanwhile():
    """A collection while the tile's objects are made frees a tile dying in a reference cycle: its block
    leaves the list between the reservation and the insertion (alloc.insert then finds the place)."""
    with run_context("trn2") as run:
        a = run.alloc[SBUF]
        old = gc.get_threshold()
        try:
            first = nl.ndarray((128, 16), dtype=np.float32)
            cyclic = [nl.ndarray((128, 16), dtype=np.float32)]
            cyclic.append(cyclic)                   # freed only by the collector
            keep = nl.ndarray((128, 16), dtype=np.float32)
            del cyclic
            gc.collect()
            gc.disable()
            cyclic = [nl.ndarray((128, 16), dtype=np.float32)]
            cyclic.append(cyclic)
            del cyclic
            assert len(a.blocks) == 3
            plan = run._sbuf_plans[((128, 16), np.float32)]
            collected = []
            gc.callbacks.append(lambda phase, info: collected.append(phase))
            gc.enable()
            gc.set_threshold(1)                     # the second tracked object made (the view) collects
            t = native.place(run, plan, SBUF, "")
        finally:
            gc.set_threshold(*old)
            gc.enable()
            gc.callbacks.pop()
        assert "stop" in collected
        offsets = [b.offset for b in a.blocks]
        assert offsets == sorted(offsets) and len(offsets) == 3 and a.blocks[-1]() is t
        assert [b() for b in a.blocks] == [first, keep, t]


def test_tile_died_frees_once_and_refuses_a_missing_block():
    with run_context("trn2") as run:
        a = run.alloc[SBUF]
        t = nl.ndarray((128, 16), dtype=np.float32)
        t2 = nl.ndarray((128, 16), dtype=np.float32)
        block = a.blocks[-1]
        assert block() is t2 and block.alive
        block.release()                         # released first: its death then does nothing
        del t2
        assert not block.alive and len(a.blocks) == 1
        stray = _alloc.TileBlock(t, None)
        stray.offset, stray.size, stray.name, stray.allocator = 4096, 64, "stray", a
        with pytest.raises(ValueError, match="no block at 0x1000"):
            native.tile_died(stray)             # as TileBlock.release: NextFitAllocator.free's error
        assert stray.allocator is None


def test_native_path_follows_the_switch(monkeypatch):
    monkeypatch.setenv("NPUSIM_NATIVE_TILE", "0")
    native_tile.reset()
    try:
        with run_context("trn2") as run:
            assert run._native_allocate is None
    finally:
        monkeypatch.delenv("NPUSIM_NATIVE_TILE")
        native_tile.reset()
    with run_context("trn2") as run:
        assert run._native_allocate is not None


def test_a_class_gaining_a_slot_turns_the_native_path_off():
    class Wider(NkiTensor):
        __slots__ = ("extra",)
    assert native_tile._slots(Wider, native_tile.TENSOR_SLOTS) is None
    assert native_tile._slots(NkiTensor, native_tile.TENSOR_SLOTS[:-1]) is None
    assert native_tile._slots(NkiTensor, native_tile.TENSOR_SLOTS) is not None


def _outcome(use_native, shape, dtype):
    with run_context("trn2") as run:
        if not use_native:
            run._native_allocate = None
        keep = [nl.ndarray((1, 16), dtype=np.float32), nl.ndarray((128, 16), dtype=np.float32)]   # plans exist
        try:
            t = nl.ndarray(shape, dtype=dtype)
        except (ConstraintError, TypeError) as e:
            return type(e).__name__, str(e)
        return _tile(t), _state(run), len(keep)


@pytest.mark.parametrize("shape,dtype", [((True, 16), np.float32), ((np.int64(128), 16), np.float32),
                                         ((128, np.int32(16)), np.float32), ((128.0, 16), np.float32),
                                         ((128, 16), [("a", "f4")]), ((128, 16), "float32"), ((), np.float32),
                                         ([128, 16], np.float32), ((128, 16, 1), np.float32)])
def test_native_allocate_leaves_what_its_plan_hit_does_not_cover_to_python(shape, dtype):
    """Bools, numpy ints and floats as dims, an unhashable or another spelling of the dtype, lists: the
    general path decides (and names the error) as without the native path."""
    assert _outcome(True, shape, dtype) == _outcome(False, shape, dtype)


@pytest.mark.parametrize("shape,dtype,buffer", [((128, 16), np.float32, nl.sbuf), ((1, 128), np.float32, nl.sbuf),
                                                 ((128, 1), np.int8, nl.sbuf), ((3, 512), np.float32, nl.psum),
                                                 ((128, 7), np.float16, nl.sbuf)])
def test_native_array_is_the_rows_slice_numpy_makes(shape, dtype, buffer):
    """column_slice builds rows[:, c:c + n] through numpy's C API: the same base object, flags, dtype,
    data pointer, shape and strides as the indexing."""
    with run_context("trn2") as run:
        keep = [nl.ndarray(shape, dtype=dtype, buffer=buffer) for _ in range(3)]
        plan = (run._sbuf_plans if buffer is nl.sbuf else run._psum_plans)[(shape, dtype)]
        for t in keep[1:]:                      # made in C (the first one made the plan in Python)
            a = t.tv._array
            c = t.tv.offset // plan.strides[1]
            b = plan.rows[:, c:c + plan.free_size]
            assert a.base is b.base and a.dtype is b.dtype and a.flags == b.flags and type(a) is type(b)
            assert (a.shape, a.strides, a.__array_interface__) == (b.shape, b.strides, b.__array_interface__)
            a[...] = 3                          # writes through to the memory's bytes
            assert (plan.rows[:, c:c + plan.free_size] == 3).all()
