"""``NkiTensor.rearrange`` (rearrange.py): einops-style split / reorder / merge as one view. References are
numpy reshape + transpose written here; the first case is the NkiTensor stub's example."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError


def test_stub_example_shape(run):
    t = nl.ndarray((128, 24), dtype=nl.float32, buffer=nl.sbuf)
    assert t.rearrange(('b', ('h', 'w')), ('b', 'w', 'h'), {'h': 4}).shape == (128, 6, 4)


def _copy_out(view_fn, shape, dtype=np.float32, on_chip=True):
    @nki.jit
    def k(a):
        if on_chip:
            t = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=a)
        else:
            t = a
        v = view_fn(t)
        out = nl.ndarray(v.shape, a.dtype, buffer=nl.shared_hbm)
        if on_chip:
            nisa.dma_copy(dst=out, src=v)
        else:
            s = nl.ndarray(v.shape, a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=s, src=v)
            nisa.dma_copy(dst=out, src=s)
        return out
    return k


def test_split_reorder_values_on_chip_and_hbm():
    a = np.arange(8 * 24, dtype=np.float32).reshape(8, 24)
    want = a.reshape(8, 4, 6).transpose(0, 2, 1)           # ('b', ('h', 'w')) -> ('b', 'w', 'h'), h = 4
    for on_chip in (True, False):
        k = _copy_out(lambda t: t.rearrange(('b', ('h', 'w')), ('b', 'w', 'h'), {'h': 4}), a.shape, on_chip=on_chip)
        np.testing.assert_array_equal(nki.simulate(k, target="trn2")(a), want)


def test_merge_on_hbm_and_a_full_permutation():
    a = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    k = _copy_out(lambda t: t.rearrange(('a', 'b', 'c', 'd'), ('a', ('b', 'c'), 'd')), a.shape, on_chip=False)
    np.testing.assert_array_equal(nki.simulate(k, target="trn2")(a), a.reshape(2, 12, 5))
    k = _copy_out(lambda t: t.rearrange(('a', 'b', 'c', 'd'), ('d', 'b', 'a', 'c')), a.shape, on_chip=False)
    np.testing.assert_array_equal(nki.simulate(k, target="trn2")(a), a.transpose(3, 1, 0, 2))


@settings(max_examples=30, deadline=None)
@given(h=st.integers(1, 6), w=st.integers(1, 6), c=st.integers(1, 4), p=st.integers(1, 16),
       order=st.permutations(["h", "w", "c"]))
def test_property_split_then_reorder_matches_numpy(h, w, c, p, order):
    a = np.random.default_rng(h * 100 + w * 10 + c).standard_normal((p, h * w, c)).astype(np.float32)
    names = ["h", "w", "c"]
    k = _copy_out(lambda t: t.rearrange(('p', ('h', 'w'), 'c'), ('p', *order), {'w': w}), a.shape)
    want = a.reshape(p, h, w, c).transpose(0, *[1 + names.index(n) for n in order])
    np.testing.assert_array_equal(nki.simulate(k, target="trn2")(a), want)


def test_rearrange_rules(run):
    t = nl.ndarray((128, 24), dtype=nl.float32, buffer=nl.sbuf)
    hbm = nl.ndarray((4, 6, 8), dtype=nl.float32, buffer=nl.shared_hbm)

    def bad(param, rule, fn):
        with pytest.raises(ConstraintError) as e:
            fn()
        assert e.value.api == "NkiTensor.rearrange" and e.value.param == param and rule in e.value.rule, e.value

    bad("src_pattern", "one entry per dim", lambda: t.rearrange(('b',), ('b',)))
    bad("src_pattern", "each name once", lambda: t.rearrange(('b', 'b'), ('b',)))
    bad("src_pattern", "names (str)", lambda: t.rearrange(('b', 3), ('b',)))
    bad("dst_pattern", "the names of src_pattern", lambda: t.rearrange(('b', 'x'), ('b', 'y')))
    bad("fixed_sizes", "all but one", lambda: t.rearrange(('b', ('h', 'w')), ('b', 'h', 'w')))
    bad("fixed_sizes", "dividing", lambda: t.rearrange(('b', ('h', 'w')), ('b', 'h', 'w'), {'h': 5}))
    bad("fixed_sizes", "product", lambda: t.rearrange(('b', ('h', 'w')), ('b', 'h', 'w'), {'h': 4, 'w': 5}))
    bad("fixed_sizes", "names of the patterns", lambda: t.rearrange(('b', 'x'), ('b', 'x'), {'z': 1}))
    bad("fixed_sizes", "a dict", lambda: t.rearrange(('b', 'x'), ('b', 'x'), [1]))
    bad("dims", "partition dim", lambda: t.rearrange(('b', 'x'), ('x', 'b')))           # permute's rule
    bad("dim", "not split", lambda: t.rearrange((('p', 'q'), 'x'), ('p', 'q', 'x'), {'p': 2}))
    bad("self", "contiguously", lambda: hbm.rearrange(('a', 'b', 'c'), ('b', ('a', 'c'))))   # flatten's rule
