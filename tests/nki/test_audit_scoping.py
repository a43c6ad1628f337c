"""Loop scoping (scope.py). Unrolled loops (nl.affine_range / sequential_range / static_range): tiles made
in an iteration stay usable after it; they lapse, and a later allocation that does not fit evicts them,
so capacity counts a tile until its last use. Compiled loops (strict scopes): a later use raises NKI's
err_local_variable_used_out_of_scope naming the variable."""
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError

TILE_M = 128


def tensor_add_kernel(TILE_N):
    """The vendor tensor-add tutorial kernel (tensor_addition_nki_kernels.py), dst-first API."""
    @nki.jit
    def k(a_input, b_input):
        c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
        M, N = a_input.shape
        for m in nl.affine_range(M // TILE_M):
            for n in nl.affine_range(N // TILE_N):
                rows, cols = slice(m * TILE_M, (m + 1) * TILE_M), slice(n * TILE_N, (n + 1) * TILE_N)
                a_tile = nl.ndarray(shape=(TILE_M, TILE_N), dtype=a_input.dtype, buffer=nl.sbuf)
                b_tile = nl.ndarray(shape=(TILE_M, TILE_N), dtype=b_input.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=a_tile, src=a_input[rows, cols])
                nisa.dma_copy(dst=b_tile, src=b_input[rows, cols])
                c_tile = nl.ndarray(shape=(TILE_M, TILE_N), dtype=a_input.dtype, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=c_tile, data1=a_tile, data2=b_tile, op=nl.add)
                nisa.dma_copy(dst=c_output[rows, cols], src=c_tile)
        return c_output
    return k


def test_tutorial_tensor_add_tile_n_16384_fits_trn2():
    # three live fp32 tiles of 64 KiB per partition = 192 KiB <= 212984 usable bytes on trn2
    rng = np.random.default_rng(0)
    a = rng.random((256, 32768), np.float32)
    b = rng.random((256, 32768), np.float32)
    y = nki.simulate(tensor_add_kernel(16384), target="trn2")(a, b)
    np.testing.assert_array_equal(y, a + b)
    assert nki.last_run().peak[nl.sbuf] == 3 * 16384 * 4


def test_one_large_tile_per_iteration_fits():
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        for i in nl.sequential_range(2):
            t = nl.ndarray((128, 32768), a.dtype, buffer=nl.sbuf)     # 128 KiB of 208 KiB per partition
            nisa.dma_copy(dst=t, src=a[i * 128:(i + 1) * 128, :])
            nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
        return out
    a = np.arange(256 * 32768, dtype=np.float32).reshape(256, 32768)
    np.testing.assert_array_equal(nki.simulate(k, target="trn2")(a), a)


def test_tiles_outside_the_loop_still_count():
    @nki.jit
    def k(a):
        keep = nl.ndarray((128, 32768), nl.float32, buffer=nl.sbuf)    # 128 KiB, live all along
        for i in nl.static_range(2):
            nl.ndarray((128, 32768), nl.float32, buffer=nl.sbuf)      # 128 KiB more: 256 KiB > 208 KiB
        return None
    with pytest.raises(ConstraintError, match="212984"):
        nki.simulate(k, target="trn2")(np.zeros((1, 1), np.float32))


def test_tile_used_after_its_iteration_stays_valid():
    @nki.jit
    def k(a):
        for i in nl.affine_range(2):
            t = nl.load(a[i * 128:(i + 1) * 128, :])
        out = nl.ndarray((128, 4), a.dtype, buffer=nl.shared_hbm)
        nl.store(out, t)
        return out
    a = np.arange(256 * 4, dtype=np.float32).reshape(256, 4)
    np.testing.assert_array_equal(nki.simulate(k)(a), a[128:])


def test_tiles_kept_in_a_list_are_used_after_the_loop():
    # the matmul tutorials' hoist_load pattern: tiles made in the loop, kept in a list, read later
    @nki.jit
    def k(a):
        tiles = []
        for i in nl.affine_range(3):
            t = nl.ndarray((128, 4), a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=a[i * 128:(i + 1) * 128, :])
            tiles.append(t)
        acc = nl.zeros((128, 4), nl.float32)
        for i in nl.sequential_range(3):
            nisa.tensor_scalar(tiles[i], tiles[i], nl.multiply, float(i + 1))
            nisa.tensor_tensor(acc, acc, tiles[i], nl.add)
        out = nl.ndarray((128, 4), a.dtype, buffer=nl.shared_hbm)
        nl.store(out, acc)
        return out
    a = np.random.default_rng(1).random((384, 4), np.float32)
    want = (a[:128] * 1 + a[128:256] * 2) + a[256:] * 3
    np.testing.assert_array_equal(nki.simulate(k)(a), want)


def test_lapsed_tile_evicted_then_used_raises_naming_the_variable():
    # each tile is 128 KiB of trn2's 208 KiB: the second iteration's allocation evicts the first tile, so
    # reading it after the loop needs 256 KiB live at once
    @nki.jit
    def k(a):
        tiles = []
        for i in nl.affine_range(2):
            t = nl.ndarray((128, 32768), nl.float32, buffer=nl.sbuf)
            nisa.memset(t, 1.0)
            tiles.append(t)
        out = nl.ndarray((128, 32768), nl.float32, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=tiles[0])
        return out
    with pytest.raises(ConstraintError, match=r"tiles\[0\].*nl.affine_range iteration 0.*212984"):
        nki.simulate(k, target="trn2")(np.zeros((1, 1), np.float32))


def test_evicted_checked_view_raises_on_the_cached_path():
    # tensor_scalar skips rules.tile for views that passed their checks: eviction unchecks them
    @nki.jit
    def k(a):
        for i in nl.affine_range(2):
            t = nl.ndarray((128, 32768), nl.float32, buffer=nl.sbuf)
            nisa.memset(t, 1.0)
            nisa.tensor_scalar(t, t, nl.add, 1.0)
            if i == 0:
                first = t
        nisa.tensor_scalar(first, first, nl.add, 1.0)
    with pytest.raises(ConstraintError, match="Tile 'first'"):
        nki.simulate(k, target="trn2")(np.zeros((1, 1), np.float32))


def test_strict_scope_tile_used_after_its_iteration_names_the_variable():
    # compiled loops (the current docs' dynamic loops) keep the restriction
    from npusim.nki import scope

    @nki.jit
    def k(a):
        run = nki.current()
        for i in scope.iterate(run, range(2), "nl.dynamic_range", strict=True):
            t_dyn = nl.load(a)
        nisa.tensor_scalar(t_dyn, t_dyn, nl.add, 1.0)
    with pytest.raises(ConstraintError, match="Local variable 't_dyn' is referenced outside of its parent "
                                              "scope nl.dynamic_range iteration 1"):
        nki.simulate(k)(np.ones((128, 4), np.float32))


def test_inner_loop_tiles_die_before_outer_ones():
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(1):
            acc = nl.zeros(a.shape, nl.float32)          # outer iteration: live through the inner loop
            for j in nl.affine_range(3):
                t = nl.load(a)
                nisa.tensor_tensor(acc, acc, t, nl.add)
            nl.store(out, acc)
        return out
    # acc and one loaded tile (100 KiB per partition each) fit in 208 KiB; two loaded tiles would not
    a = np.full((128, 25600), 2.0, np.float32)
    np.testing.assert_array_equal(nki.simulate(k, target="trn2")(a), 3 * a)


def test_ranges_outside_a_kernel_are_plain_ranges():
    assert list(nl.affine_range(3)) == [0, 1, 2]
    assert nl.sequential_range(2, 8, 3) == range(2, 8, 3)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 25), min_size=1, max_size=8))
def test_property_loop_tiles_fit_when_each_iteration_fits(sizes_kib8):
    # per iteration one tile of 8 KiB multiples (up to 200 KiB of trn2's 212984 B): each fits alone, so the
    # loop runs whatever the sum, lapsed tiles giving way; every stored value is the one its iteration wrote
    sizes = [s * 2048 for s in sizes_kib8]      # fp32 elements per partition

    @nki.jit
    def k(a):
        out = nl.ndarray((len(sizes), 128, 1), nl.float32, buffer=nl.shared_hbm)
        for i in nl.affine_range(len(sizes)):
            t = nl.ndarray((128, sizes[i]), nl.float32, buffer=nl.sbuf)
            nisa.memset(t, float(i + 1))
            nisa.dma_copy(dst=out[i], src=t[:, sizes[i] - 1:sizes[i]])
        return out
    y = nki.simulate(k, target="trn2")(np.zeros((1, 1), np.float32))
    want = np.repeat(np.arange(1, len(sizes) + 1, dtype=np.float32)[:, None], 128, axis=1)
    np.testing.assert_array_equal(y[:, :, 0], want)
    assert nki.last_run().peak[nl.sbuf] <= 212984
