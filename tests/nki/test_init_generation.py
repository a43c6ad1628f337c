"""nki clears init bytes through the core (Memory.forget / forget_lanes), so the memory's generation
moves and a core TensorView that cached "all my bytes were written" looks again. Cleared by hand on
``mem.init``, such a view would keep reading stale bytes as written."""
import gc

import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim import configure
from npusim.core.errors import UninitializedReadError


def _written_in_halves(shape):
    """A tile written by two partial writes: its allocation is never marked ``full``, so reads go
    through the core's init check (and its cached flag)."""
    t = nl.ndarray(shape, nl.float32)
    half = shape[1] // 2
    t[:, :half].write(np.ones((shape[0], half), np.float32))
    t[:, half:].write(np.ones((shape[0], shape[1] - half), np.float32))
    assert (t.numpy() == 1).all()                  # no warning: the view now caches "fully written"
    return t


def test_a_new_tile_over_freed_bytes_invalidates_the_old_views_flag(run):
    old = _written_in_halves((128, run.chip.sbuf_usable // 4))       # every usable byte
    old_tv = old.tv
    gen = old_tv.memory.generation
    del old
    gc.collect()                                    # frees the block: the next tile reuses the bytes
    new = nl.ndarray((128, 4), nl.float32)
    assert new.tv.offset == old_tv.offset
    new[:, 0:2].write(np.full((128, 2), 5.0, np.float32))       # a partial write clears the stale map
    assert old_tv.memory.generation > gen
    with configure(uninitialized="error"):
        with pytest.raises(UninitializedReadError):
            new.numpy()                             # columns 2:4 were never written by the new tile
        with pytest.raises(UninitializedReadError):
            old_tv.read()                           # the freed tile's bytes are no longer "written"


def test_bytes_read_after_the_launch_released_them_are_uninitialised():
    kept = []

    @nki.jit
    def k(a):
        t = _written_in_halves((128, 8))
        kept.append(t)                              # a handle that outlives the launch
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out

    assert (nki.simulate(k)(np.zeros((128, 8), np.float32)) == 1).all()
    t = kept[0]
    assert t.tv.memory.init.reshape(128, -1)[:, :32].max() == 0     # release() cleared the map ...
    with configure(uninitialized="error"):
        with pytest.raises(UninitializedReadError):
            t.numpy()                               # ... and the tile's cached flag saw it
