"""``nl.ndarray(..., address=(partition_offset, free_offset))`` (placement.py): tiles the kernel places
itself, as nki-library's SbufManager and attention_cte's PSUM buffers do."""
import warnings

import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError, UninitializedReadWarning


def test_a_placed_tile_sits_at_its_address(run):
    t = nl.ndarray((32, 16), nl.float32, buffer=nl.sbuf, address=(64, 4096))
    assert t.tv.offset == 64 * run.sbuf.lane_bytes + 4096 and t.start_partition == 64
    t.write(np.arange(512, dtype=np.float32).reshape(32, 16))
    raw = run.sbuf.data.reshape(run.sbuf.lanes, -1)[64:96, 4096:4096 + 64].copy().view(np.float32)
    np.testing.assert_array_equal(raw, np.arange(512, dtype=np.float32).reshape(32, 16))


def test_placed_tiles_may_overlap_and_a_new_one_starts_as_poison(run):
    a = nl.ndarray((128, 8), nl.float32, buffer=nl.sbuf, address=(0, 0))
    a.write(np.ones((128, 8), np.float32))
    b = nl.ndarray((128, 4), nl.float32, buffer=nl.sbuf, address=(0, 16))     # a's last 4 columns
    with pytest.warns(UninitializedReadWarning):
        assert np.isnan(b[0:1, 0:2].read()).all()       # a new tile: never written, whatever a left there
    b.write(np.full((128, 4), 2.0, np.float32))
    np.testing.assert_array_equal(a.read()[0], [1, 1, 1, 1, 2, 2, 2, 2])   # a sees b's bytes, as on the chip


def test_automatic_tiles_keep_away_from_live_placed_bytes(run):
    p = nl.ndarray((128, 1024), nl.float32, buffer=nl.sbuf, address=(0, 0))      # bytes [0, 4096)
    q = nl.ndarray((128, 256), nl.float32, buffer=nl.sbuf, address=(0, 2048))    # inside p: one union block
    t = nl.ndarray((128, 512), nl.float32, buffer=nl.sbuf)
    assert t.tv.offset >= 4096
    assert [(b.offset, b.size) for b in run.alloc[nl.sbuf].blocks if b.name.startswith("placed")] == [(0, 4096)]
    del p, q, t                                  # dropped: the placed bytes are free again
    assert not [b for b in run.alloc[nl.sbuf].blocks if b.name.startswith("placed")]


def test_placing_onto_a_live_automatic_tile_is_refused(run):
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    lo = t.tv.offset
    with pytest.raises(ConstraintError, match="automatically allocated"):
        nl.ndarray((128, 4), nl.float32, buffer=nl.sbuf, address=(0, lo + 8))


def test_placement_evicts_a_lapsed_loop_tile():
    @nki.jit
    def k(x):
        tiles = []
        for i in nl.affine_range(1):
            t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x)
            tiles.append(t)
        lo = tiles[0].tv.offset
        nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf, address=(0, lo))       # takes the lapsed tile's bytes
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=tiles[0])       # used after its bytes were given away: raises
        return out

    with pytest.raises(ConstraintError, match="tiles\\[0\\]"):
        nki.simulate(k)(np.ones((128, 64), np.float32))


def test_placement_rules(run):
    cases = [
        (lambda: nl.ndarray((64, 4), nl.float32, buffer=nl.sbuf, address=(96, 0)), "partition_offset \\+ shape"),
        (lambda: nl.ndarray((128, 4), nl.float32, buffer=nl.sbuf, address=(0, run.chip.sbuf_usable - 8)),
         "bytes per partition"),
        (lambda: nl.ndarray((128, 4), nl.float32, buffer=nl.sbuf, address=(0, 2)), "multiple of the dtype"),
        (lambda: nl.ndarray((128, 4), nl.float32, buffer=nl.hbm, address=(0, 0)), "SBUF and PSUM"),
        (lambda: nl.ndarray((128, 4), nl.float32, buffer=nl.sbuf, address=0), "pair"),
        (lambda: nl.ndarray((128, 4), nl.float32, buffer=nl.sbuf, address=(0, -4)), "non-negative"),
        (lambda: nl.ndarray((128, 4), nl.float32, buffer=nl.sbuf, address=(0.0, 0)), "non-negative int"),
        (lambda: nl.ndarray((128, 4), nl.float32, buffer=nl.psum, address=(0, 16384)), "bytes per partition"),
    ]
    for make, words in cases:
        with pytest.raises(ConstraintError, match=words):
            make()


def test_psum_tiles_placed_on_banks_accumulate_a_matmul(run):
    a = np.random.default_rng(0).standard_normal((128, 128)).astype(np.float32)
    sa = nl.ndarray((128, 128), nl.float32, buffer=nl.sbuf, address=(0, 0))
    sa.write(a)
    acc = nl.ndarray((128, 128), nl.float32, buffer=nl.psum, address=(0, 3 * 2048))   # bank 3
    assert acc.tv.offset == 3 * 2048
    nisa.nc_matmul(dst=acc, stationary=sa, moving=sa)
    np.testing.assert_allclose(acc.read(), a.T.astype(np.float64) @ a, rtol=1e-4, atol=1e-3)
    other = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)      # automatic: not on bank 3
    assert other.tv.offset != 3 * 2048


def test_reusing_placed_bytes_waits_for_the_earlier_reader():
    @nki.jit
    def k(x):
        a = nl.ndarray((128, 2048), nl.float32, buffer=nl.sbuf, address=(0, 0))
        nisa.dma_copy(dst=a, src=x)
        r = nl.ndarray((128, 2048), nl.float32, buffer=nl.sbuf, address=(0, 8192))
        nisa.tensor_scalar(dst=r, data=a, op0=nl.multiply, operand0=2.0)       # reads a (VectorE)
        b = nl.ndarray((128, 2048), nl.float32, buffer=nl.sbuf, address=(0, 0))  # a's bytes again
        nisa.memset(dst=b, value=1.0, engine=nisa.gpsimd_engine)                # must wait for the read
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=r)
        return out

    x = np.ones((128, 2048), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(nki.simulate(k, target="trn2")(x), 2 * x)
    ev = {e.name: e for e in nki.last_run().trace.events}
    assert ev["nisa.memset"].start_ns >= ev["nisa.tensor_scalar"].end_ns


@nki.jit
def _swap_through_placed_tiles(x):
    """Both LNC2 cores place their tiles at the same addresses (as SbufManager does) and swap them."""
    rank = nl.program_id(0)
    t = nl.ndarray((64, 8), nl.float32, buffer=nl.sbuf, address=(0, 0))
    nisa.dma_copy(dst=t, src=x[rank * 64:(rank + 1) * 64, :])
    keep = nl.ndarray((64, 8), nl.float32, buffer=nl.sbuf, address=(0, 128))
    nisa.tensor_scalar(dst=keep, data=t, op0=nl.multiply, operand0=10.0)    # kept across the exchange
    r = nl.ndarray((64, 8), nl.float32, buffer=nl.sbuf, address=(0, 64))
    nisa.sendrecv(src=t, dst=r, send_to_rank=1 - rank, recv_from_rank=1 - rank, pipe_id=0)
    nisa.tensor_tensor(dst=r, data1=r, data2=keep, op=nl.add)
    out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out[rank * 64:(rank + 1) * 64, :], src=r)
    return out


def test_each_core_places_tiles_in_its_own_sbuf():
    x = np.arange(128 * 8, dtype=np.float32).reshape(128, 8)
    got = nki.simulate(_swap_through_placed_tiles[2], target="trn2")(x)
    want = np.concatenate([x[64:] + 10 * x[:64], x[:64] + 10 * x[64:]])
    np.testing.assert_array_equal(got, want)      # one shared SBUF: core 1's tiles would overwrite core 0's


def test_a_placed_tile_counts_in_the_run_peak_and_is_forgotten_at_release():
    """Run.peak is the allocators' high-water mark; a placed tile above every automatic tile raises it,
    so release clears its init bytes even where the OS cannot take pages back (forget_lanes path)."""
    far = 150_000
    seen = {}

    @nki.jit
    def k(x):
        t = nl.ndarray((128, 4), nl.float32, buffer=nl.sbuf, address=(0, far))
        nisa.dma_copy(dst=t, src=x)
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out

    @nki.jit
    def peek(x):
        t = nl.ndarray((128, 4), nl.float32, buffer=nl.sbuf, address=(0, far))
        seen["written"] = bool(t.tv.memory.init.reshape(t.tv.memory.lanes, -1)[0:128, far:far + 16].any())
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=x)
        return out

    x = np.ones((128, 4), np.float32)
    from npusim.core.memory import Memory
    orig = Memory.drops_pages
    Memory.drops_pages = property(lambda self: False)       # the portable path: forget_lanes(0..peak)
    try:
        np.testing.assert_array_equal(nki.simulate(k, target="trn2")(x), x)
        assert nki.last_run().peak[nl.sbuf] >= far + 16
        nki.simulate(peek, target="trn2")(x)
    finally:
        Memory.drops_pages = orig
    assert seen["written"] is False
