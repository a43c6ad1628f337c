"""What a launch leaves in the pooled SBUF/PSUM init maps: nothing. ``Run.release`` clears the used bytes
of every partition, and the memory's marked box (core/memory.py) lets it skip bytes no mark reached; every
path that marks init bytes must report its box, or a later launch would read stale bytes as written."""
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import UninitializedReadWarning
from npusim.core.memory import NOTHING_MARKED
from npusim.nki import run_context
from npusim.nki import runtime


def _int_tile(values, shape):
    t = nl.ndarray(shape, nl.int32)
    t.write(np.asarray(values, np.int32).reshape(shape))
    return t


def test_partial_and_indirect_marks_are_cleared_at_release():
    # fresh memories: a pooled one whose raw init map an earlier test took (Memory.init) is untracked for
    # good (marked None), and this test checks the tracked box
    runtime._POOL.pop("trn2", None)
    with run_context("trn2") as run:
        wide = nl.ndarray((128, 64), nl.float32)
        wide[:, 8:16].write(np.ones((128, 8), np.float32))          # a partial write marks init bytes
        rows = nl.ndarray((128, 64), nl.float32)
        src = nl.ndarray((16, 64), nl.float32)
        src.write(np.ones((16, 64), np.float32))
        idx = _int_tile(np.arange(16) * 2, (16, 1))
        # an indirect scatter into SBUF storage marks through access.py's init view
        nisa.dma_copy(dst=rows.ap([[64, 16], [1, 64]], offset=0, vector_offset=idx, indirect_dim=0), src=src)
        assert rows.tv.memory is run.sbuf
        sbuf = run.sbuf.init_to_mark(0, 0, 0, 0).reshape(128, -1)    # (the raw map, tracking kept on)
        assert sbuf.any()
        l0, l1, b0, b1 = run.sbuf.marked
        outside = sbuf.copy()
        outside[l0:l1, b0:b1] = 0
        assert not outside.any()                  # every mark lies in the box
        run.release()
        assert not run.sbuf.init_to_mark(0, 0, 0, 0).any() and not run.psum.init_to_mark(0, 0, 0, 0).any()
        assert run.sbuf.marked is NOTHING_MARKED


@nki.jit
def _partial(x):
    t = nl.ndarray((128, 32), nl.float32)
    nisa.dma_copy(dst=t[:, 0:16], src=x)          # half the tile: its init bytes are marked
    out = nl.ndarray((128, 16), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t[:, 0:16])
    return out


@nki.jit
def _stale_read(x):
    t = nl.ndarray((128, 32), nl.float32)         # the same bytes the last launch's tile had
    out = nl.ndarray((128, 32), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


def test_the_next_launch_reads_an_earlier_launchs_bytes_as_never_written():
    x = np.ones((128, 16), np.float32)
    nki.simulate(_partial, target="trn2")(x)
    with pytest.warns(UninitializedReadWarning):
        y = nki.simulate(_stale_read, target="trn2")(x)
    assert np.isnan(y).all()                      # poison: nothing of the first launch counts as written
