"""The short paths of tile creation and indexing give what the general paths give.

* ``NkiTensor.__getitem__`` takes ``_basic_view`` for plain keys (in-range ints, slices, ``nl.ds``); every
  key, good or bad, must give the view (geometry, footprint box, tensor fields) or the error that the
  general path ``NkiTensor._index`` gives.
* ``Run.allocate`` reuses a per-launch plan per (shape, dtype, buffer): a planned tile equals one made
  by the general path, and any changed field (shape, dtype, buffer, a bool or numpy dim) misses the plan.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki.language as nl
from npusim.core.errors import ConstraintError, NpuSimError
from npusim.nki import run_context
from npusim.nki.plan import sig as _sig
from npusim.nki.tensor import DynSlice, NkiTensor, _basic_view


def _box(tv):
    f = tv.footprint
    return f.memory, f.lane_lo, f.lane_hi, f.lo, f.hi, f.view is tv


def _same_tensor(a: NkiTensor, b: NkiTensor) -> None:
    va, vb = a.tv, b.tv
    assert (va.memory, va.offset, va.shape, va.strides, va.dtype) == (vb.memory, vb.offset, vb.shape, vb.strides,
                                                                      vb.dtype)
    assert all(type(x) is int for x in (*va.shape, *va.strides, va.offset))
    assert _box(va)[:5] == _box(vb)[:5] and _box(va)[5] and _box(vb)[5]
    # the box the placed view carries is the one the bounds check computes
    f = va._footprint(None)
    assert (f.lane_lo, f.lane_hi, f.lo, f.hi) == _box(va)[1:5]
    for x in (a, b):
        _same_array_as_built(x.tv)
        # the attributes kept as plain slots are what the view says
        assert (x.shape, x.size) == (x.tv.shape, x.tv.size)
        assert x.start_partition == (x.tv.footprint.lane_lo if x.on_chip else 0)
    assert (a.sig or _sig(a)) == (b.sig or _sig(b))     # (a planned view carries its sig from the start)
    for slot in ("buffer", "name", "root", "run", "full", "stale", "checked", "scope", "ind", "on_chip",
                 "in_psum", "free_size", "partitions", "nbytes", "shape", "start_partition", "size"):
        assert getattr(a, slot) == getattr(b, slot), slot


def _same_array_as_built(tv) -> None:
    """A numpy view the short paths made by slicing is the one ``array()`` would build."""
    given = tv._array
    if given is None:
        return
    built = np.ndarray(tv.shape, tv.dtype.np, buffer=tv.memory.data, offset=tv.offset, strides=tv.strides)
    assert type(given) is np.ndarray
    assert (given.shape, given.strides, given.dtype) == (built.shape, built.strides, built.dtype)
    assert given.__array_interface__["data"] == built.__array_interface__["data"]
    for flag in ("C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEABLE", "ALIGNED", "OWNDATA"):
        assert given.flags[flag] == built.flags[flag], flag


def _outcome(f):
    try:
        return f()
    except NpuSimError as e:
        return ("error", type(e).__name__, str(e))


_index = st.one_of(
    st.integers(-6, 12),
    st.builds(slice, st.none() | st.integers(-6, 12), st.none() | st.integers(-6, 12),
              st.none() | st.integers(-2, 4)),
    st.builds(DynSlice, st.integers(-1, 10), st.integers(-1, 10), st.integers(-1, 3)),
    st.sampled_from([Ellipsis, np.int64(1), True, slice(np.int64(0), 2), slice(0.0, 2)]),
)


_RUN = []


def _shared_run():
    """One launch for every example (a fresh Run maps ~27 MB of SBUF/PSUM: page faults per example)."""
    from npusim.nki import runtime, spec
    if not _RUN:
        _RUN.append(runtime.Run(spec.chip("trn2")))
    return runtime.activate(_RUN[0])


@settings(max_examples=300, deadline=None)
@given(on_chip=st.booleans(), shape=st.lists(st.integers(1, 9), min_size=1, max_size=4),
       base=st.lists(_index, max_size=2), key=st.lists(_index, max_size=5), as_tuple=st.booleans(),
       dtype=st.sampled_from(["float32", "bfloat16", "int8"]), arrays=st.booleans())
def test_getitem_short_path_equals_the_general_path(on_chip, shape, base, key, as_tuple, dtype, arrays):
    if on_chip and len(shape) < 2:
        shape = shape + [3]
    with _shared_run():
        nl.ndarray(tuple(shape), dtype, buffer=nl.sbuf if on_chip else nl.hbm)    # (makes the plan)
        t = nl.ndarray(tuple(shape), dtype, buffer=nl.sbuf if on_chip else nl.hbm)
        _same_array_as_built(t.tv)
        if arrays:                      # the parent's numpy view exists: the short path slices it
            t.tv.array()
        for k in (tuple(base), ):       # a strided, offset view to index further (or t itself)
            v = _outcome(lambda: t._index(k))
            if not isinstance(v, tuple):
                t = v
                if arrays and t.tv.size:     # (a size-0 view past the end has no numpy view)
                    t.tv.array()
        k = tuple(key) if as_tuple or len(key) != 1 else key[0]
        general = _outcome(lambda: t._index(k))
        short = _basic_view(t, k)
        if short is not None:
            short = t._derive(short)
            assert not isinstance(general, tuple), general     # a short view only where the key is good
            _same_tensor(short, general)
        got = _outcome(lambda: t[k])
        if isinstance(general, tuple):
            assert got == general
        else:
            _same_tensor(got, general)


def test_common_forms_take_the_short_path(run):
    t = nl.ndarray((128, 64), nl.float32)
    h = nl.ndarray((2, 256, 16), nl.float32, buffer=nl.shared_hbm)
    for view, key in ((t, (slice(None), slice(8, 24))), (t, (slice(0, 64), slice(0, 8))), (t, slice(0, 32)),
                      (t, (DynSlice(32, 32), slice(None))), (t, (3, slice(0, 64, 2))), (h, (1, slice(128, 256), slice(0, 16))),
                      (h, 0)):
        short = _basic_view(view, key)
        assert short is not None, key
        assert short._array is not None, key        # a numpy slice of the parent's view, not built later
        _same_tensor(view._derive(short), view._index(key))


def _tile_fields(t: NkiTensor):
    v = t.tv
    return (v.memory.name, v.offset, v.shape, v.strides, v.dtype, _box(v)[1:5], t.buffer, t.name, t.free_size,
            t.partitions, t.nbytes, t.stale, t.root, t.scope)


@pytest.mark.parametrize("shape, dtype, buffer", [((128, 16), nl.float32, nl.sbuf), ((64, 4, 8), "bfloat16", nl.sbuf),
                                                  ((128, 512), nl.float32, nl.psum), ((1, 3), nl.int8, nl.sbuf)])
def test_a_planned_tile_equals_a_general_one(shape, dtype, buffer):
    with run_context("trn2") as a, run_context("trn2") as b:
        for _ in range(3):
            planned = a.allocate(shape, dtype, buffer)      # the first call makes the plan, later ones use it
            b._sbuf_plans.clear()
            b._psum_plans.clear()
            general = b.allocate(shape, dtype, buffer)
            assert _tile_fields(planned) == _tile_fields(general)
            assert planned.tv.footprint.memory is (a.sbuf if buffer is nl.sbuf else a.psum)
            assert [x.name for x in a.alloc[buffer].blocks] == [x.name for x in b.alloc[buffer].blocks]
        assert len(a._sbuf_plans) + len(a._psum_plans) == 1
        assert a.peak == b.peak


def test_a_changed_field_misses_the_plan(run):
    t = run.allocate((128, 16), nl.float32, nl.sbuf)
    assert list(run._sbuf_plans) == [((128, 16), nl.float32)]
    for shape, dtype, buffer in (((128, 8), nl.float32, nl.sbuf), ((128, 16), nl.bfloat16, nl.sbuf),
                                 ((128, 16), nl.float32, nl.psum), ((128, 16), "float32", nl.sbuf)):
        u = run.allocate(shape, dtype, buffer)
        assert (u.shape, u.tv.dtype.name, u.buffer) == (shape, np.dtype(dtype).name if dtype != nl.bfloat16
                                                        else "bfloat16", buffer)
    # tfloat32 (npusim's DType: no numpy type) and float32 share a numpy storage type, not a plan
    assert run.allocate((128, 16), nl.tfloat32, nl.sbuf).tv.dtype.name == "tfloat32"
    assert run.allocate((128, 16), nl.float32, nl.sbuf).tv.dtype.name == "float32"
    # dims that hash like ints but are not Python ints take the general path (and its checks)
    with pytest.raises(ConstraintError, match="every dim is a positive int"):
        run.allocate((True, 16), nl.float32, nl.sbuf)
    u = run.allocate((np.int64(128), 16), nl.float32, nl.sbuf)
    assert u.shape == (128, 16) and all(type(d) is int for d in u.shape)
    assert run.allocate([128, 16], nl.float32, nl.sbuf).shape == (128, 16)
    with pytest.raises(ConstraintError):
        run.allocate((128, 16), [1], nl.sbuf)           # unhashable dtype: the general path's error
    del t, u


def test_a_named_tile_keeps_its_name_on_the_plan(run):
    a = run.allocate((128, 16), nl.float32, nl.sbuf, name="acc")
    b = run.allocate((128, 16), nl.float32, nl.sbuf)
    assert (a.name, b.name) == ("acc", "")
    assert [x.name for x in run.alloc[nl.sbuf].blocks] == ["acc", "sbuf[(128, 16)]"]


def test_the_short_path_keeps_the_subclass_views(run):
    from npusim.nki.legacy.tensor import LegacyTensor, legacy
    t = legacy(nl.ndarray((128, 64), nl.float32))
    v = t[:, 0:8]
    assert type(v) is LegacyTensor and v.root is t and v.shape == (128, 8)


def _shape_general(api, v, itemsize=1, on_chip=False, param="shape"):
    """args.shape as it was before its short path (every input through as_int)."""
    import math
    from npusim.nki import args as A
    if A.is_int(v):
        v = (v,)
    if not isinstance(v, (tuple, list)):
        raise ConstraintError(api, param, "a tuple of positive ints", v)
    if not 1 <= len(v) <= A.MAX_DIMS:
        raise ConstraintError(api, param, f"1 to {A.MAX_DIMS} dims", v)
    out = tuple(A.as_int(api, param, d, 1, rule="every dim is a positive int") for d in v)
    if on_chip and out[0] > A.MAX_PARTITIONS:
        raise ConstraintError(api, param, f"an SBUF/PSUM tile has at most {A.MAX_PARTITIONS} partitions "
                              "(the hardware has 128)", out)
    if not on_chip and math.prod(out) * itemsize > A.MAX_HBM_BYTES:
        raise ConstraintError(api, param, f"an HBM tensor holds at most {A.MAX_HBM_BYTES} bytes (npusim's limit)",
                              out)
    return out


_dim = st.one_of(st.integers(-2, 5000), st.sampled_from([True, False, 2.0, np.int64(3), np.int32(0), None, "4"]))


@settings(max_examples=300, deadline=None)
@given(dims=st.lists(_dim, max_size=10), as_list=st.booleans(), on_chip=st.booleans(),
       itemsize=st.sampled_from([1, 4]), scalar=st.booleans())
def test_args_shape_short_path_equals_the_general_path(dims, as_list, on_chip, itemsize, scalar):
    from npusim.nki import args as A
    v = (dims[0] if dims else 7) if scalar else (list(dims) if as_list else tuple(dims))
    want = _outcome(lambda: _shape_general("nl.ndarray", v, itemsize, on_chip))
    got = _outcome(lambda: A.shape("nl.ndarray", v, itemsize, on_chip))
    assert got == want and type(got) is type(want)
    if type(got) is tuple and got and got[0] != "error":
        assert all(type(d) is int for d in got)


def test_a_subclass_keeps_its_kind_of_view_on_both_paths(run):
    """A subclass that does not override ``_derive`` gets views of its own class (the short path builds
    them inline, the general path through ``_derive``); one that overrides it is asked every time."""
    class Plain(NkiTensor):
        __slots__ = ()

    class Own(NkiTensor):
        __slots__ = ()
        made = []

        def _derive(self, view):
            Own.made.append(view)
            return NkiTensor(view, self.buffer, self.name, self.root or self, self.run)

    base = nl.ndarray((128, 64), nl.float32)
    plain = Plain(base.tv, base.buffer, base.name, None, base.run)
    own = Own(base.tv, base.buffer, base.name, None, base.run)
    for key in ((slice(None), slice(8, 24)), (slice(None), slice(-8, None))):      # short, general path
        got, want = plain[key], base[key]
        assert type(got) is Plain and got.root is plain
        assert (got.tv.offset, got.shape, got.tv.strides, got.free_size, got.nbytes) == \
            (want.tv.offset, want.shape, want.tv.strides, want.free_size, want.nbytes)
        assert type(own[key]) is NkiTensor
    assert len(Own.made) == 2


# ---- view plans (NkiTensor.__getitem__ keeps one per parent geometry, lane size and key) ----

def _general(t, key):
    return _outcome(lambda: t._index(key))


def _check_against_general(t, key):
    got, want = _outcome(lambda: t[key]), _general(t, key)
    if isinstance(want, tuple):
        assert got == want
    else:
        _same_tensor(got, want)
    return got


def test_a_changed_field_misses_the_view_plan(run):
    from npusim.nki.tensor import _VIEW_PLANS
    h = nl.ndarray((2, 256, 16), nl.float32, buffer=nl.shared_hbm)
    key = (1, slice(0, 128), slice(0, 16))
    _check_against_general(h, key)
    planned = len(_VIEW_PLANS)
    again = _check_against_general(h, key)         # the plan: the same view
    assert len(_VIEW_PLANS) == planned and again.tv.offset == 256 * 16 * 4
    # fields that equal the plan's ints without being ints: the general path's answer (view or error)
    for k in ((True, slice(0, 128), slice(0, 16)), (np.int64(1), slice(0, 128), slice(0, 16)),
              (1, slice(0.0, 128), slice(0, 16)), (1, slice(0, 128), slice(False, 16)),
              (1, slice(0, 128, 1), slice(0, 16)), (1, DynSlice(0, 128), slice(0, 16))):
        _check_against_general(h, k)
    # another dtype, another shape, another buffer, another lane size: their own plans
    for t in (nl.ndarray((2, 256, 16), nl.bfloat16, buffer=nl.shared_hbm),
              nl.ndarray((2, 256, 32), nl.float32, buffer=nl.shared_hbm),
              nl.ndarray((2, 256, 16), nl.float32, buffer=nl.hbm)):
        v = _check_against_general(t, key)
        assert v.tv.strides == t.tv.strides[1:]
    tiles = [nl.ndarray((128, 2, 16), nl.float32)]
    with run_context("trn1"):                       # another SBUF lane size, the same tile geometry
        tiles.append(nl.ndarray((128, 2, 16), nl.float32))
        for t in tiles:
            for k in ((slice(0, 64), 1, slice(0, 8)), (slice(8, 72), 1, slice(0, 8))):
                v = _check_against_general(t, k)
                assert v.start_partition == k[0].start and v.tv.memory is t.tv.memory
    # a tile elsewhere (the same geometry): the same plan, the view where that tile lies
    a, b = nl.ndarray((128, 64), nl.float32), nl.ndarray((128, 64), nl.float32)
    va, vb = _check_against_general(a, (slice(4, 8), slice(16, 32))), _check_against_general(b, (slice(4, 8), slice(16, 32)))
    assert vb.tv.offset - va.tv.offset == b.tv.offset - a.tv.offset != 0
