"""The kernel run: capacity per partition, freeing, PSUM banks, targets, SPMD launch, in/out arrays."""
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import run_context


@pytest.mark.parametrize("target,usable", [("trn1", 180224), ("trn2", 212984), ("trn3", 245752)])
def test_sbuf_capacity_per_partition_is_the_usable_size(target, usable):
    with run_context(target) as run:
        a = nl.ndarray((128, usable // 4), nl.float32, name="whole")      # exactly fits
        with pytest.raises(ConstraintError, match=rf"holds at most {usable} bytes.*whole@0x0\+{usable}"):
            nl.ndarray((1, 1), nl.int8, name="one more")
        del a
        nl.ndarray((128, usable // 4), nl.float32)                         # freed when dropped
        assert run.peak[nl.sbuf] == usable


def test_capacity_counts_bytes_per_partition_not_partitions():
    with run_context("trn2"):
        tiles = [nl.ndarray((128, 2048), nl.float32) for _ in range(25)]   # 25 * 8192 = 204800 B
        with pytest.raises(ConstraintError, match="SBUF"):
            tiles.append(nl.ndarray((1, 2048), nl.float32))               # one partition: still 8192 B
        tiles.append(nl.ndarray((128, 2046), nl.float32))                 # 204800 + 8184 = 212984 exactly


def test_psum_holds_eight_banks():
    with run_context("trn2") as run:
        banks = [nl.ndarray((128, 512), nl.float32, buffer=nl.psum) for _ in range(8)]
        assert [b.tv.offset for b in banks] == [2048 * i for i in range(8)]
        with pytest.raises(ConstraintError, match="PSUM"):
            nl.ndarray((128, 1), nl.float32, buffer=nl.psum)
        small = [nl.ndarray((128, 4), nl.bfloat16, buffer=nl.psum)] if False else []
        assert run.peak[nl.psum] == 16384 and small == []


def test_psum_tile_inside_one_bank(run):
    p = nl.ndarray((128, 1024), nl.float32, buffer=nl.psum)           # two banks: allocation is fine
    p.write(np.zeros((128, 1024), np.float32))
    out = nl.ndarray((128, 512), nl.float32)
    nisa.tensor_copy(out, p[:, 0:512])
    nisa.tensor_copy(out, p[:, 512:1024])
    with pytest.raises(ConstraintError, match="one 2048-byte bank"):
        nisa.tensor_copy(out, p[:, 256:768])


def test_quadrant_start_partition_rules(run):
    t = nl.ndarray((128, 8), nl.float32)
    t.write(np.ones((128, 8), np.float32))
    for sl, ok in (((0, 128), True), ((1, 127), False), ((64, 64), True), ((32, 64), False),
                   ((96, 32), True), ((16, 32), False), ((32, 16), True), ((33, 16), False)):
        v = t[nl.ds(*sl), :]
        out = nl.ndarray((sl[1], 8), nl.float32)
        if ok:
            nisa.tensor_scalar(out, v, nl.add, 1.0)
        else:
            with pytest.raises(ConstraintError, match="starts at partition"):
                nisa.tensor_scalar(out, v, nl.add, 1.0)


def test_free_size_and_access_pattern_limits(run):
    t = nl.ndarray((2, 65537), nl.int8)
    out = nl.ndarray((2, 65537), nl.int8)
    with pytest.raises(ConstraintError, match="65536 elements"):
        nisa.tensor_copy(out, t)
    big = nl.ndarray((2, 2, 2, 2, 2, 2), nl.float32)
    with pytest.raises(ConstraintError, match="at most 4 free dims"):
        nisa.memset(big, 0.0)


def test_target_env_override(monkeypatch):
    seen = []

    @nki.jit
    def k(a):
        seen.append(nisa.get_nc_version())
        return None

    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", "gen4")
    nki.simulate(k)(np.zeros((2, 2), np.float32))
    nki.simulate(k, target="trn1")(np.zeros((2, 2), np.float32))
    monkeypatch.delenv("NEURON_PLATFORM_TARGET_OVERRIDE")
    nki.simulate(k)(np.zeros((2, 2), np.float32))
    assert seen == [nisa.nc_version.gen4, nisa.nc_version.gen2, nisa.nc_version.gen3]
    with pytest.raises(ConstraintError, match="target"):
        nki.simulate(k, target="trn9")(np.zeros((2, 2), np.float32))


@nki.jit
def add_tiles(a, b):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    i, j = nl.program_id(0), nl.program_id(1)
    rows, cols = a.shape[0] // nl.num_programs(0), a.shape[1] // nl.num_programs(1)
    ta = nl.load(a[nl.ds(i * rows, rows), nl.ds(j * cols, cols)])
    tb = nl.load(b[nl.ds(i * rows, rows), nl.ds(j * cols, cols)])
    nl.store(out[nl.ds(i * rows, rows), nl.ds(j * cols, cols)], nl.add(ta, tb))
    return out


def test_spmd_grid_shares_the_output():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((256, 1024)).astype(np.float32), rng.standard_normal((256, 1024)).astype(np.float32)
    y = nki.simulate(add_tiles[2, 2])(a, b)
    np.testing.assert_array_equal(y, a + b)
    run = nki.last_run()
    assert run.grid == (2, 2) and len(run.shared) == 1
    assert sum(e.name == "nisa.tensor_tensor" for e in run.trace.events) == 4
    with pytest.raises(ConstraintError, match="grid"):
        add_tiles[0]


def test_outputs_must_be_shared_hbm_and_inputs_update_in_place():
    @nki.jit
    def bad(a):
        t = nl.load(a)
        return t

    with pytest.raises(ConstraintError, match="shared_hbm"):
        nki.simulate(bad)(np.zeros((4, 4), np.float32))

    @nki.jit
    def inplace(a):
        t = nl.load(a)
        nisa.tensor_scalar(t, t, nl.multiply, 2.0)
        nl.store(a, t)

    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    assert nki.simulate(inplace)(x) is None
    np.testing.assert_array_equal(x, 2 * np.arange(16, dtype=np.float32).reshape(4, 4))


def test_calls_outside_a_kernel_raise():
    with pytest.raises(ConstraintError, match="inside a kernel"):
        nl.ndarray((2, 2), nl.float32)


def test_jit_called_directly_and_with_options():
    @nki.jit(mode="simulation")
    def k(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        nl.store(out, nl.multiply(nl.load(a), 3.0))
        return out

    np.testing.assert_array_equal(k(np.ones((8, 8), np.float32)), np.full((8, 8), 3.0, np.float32))


def test_info_lists_the_chips():
    info = nki.info()
    assert info["trn2"]["SBUF usable bytes/partition"] == 212984
    assert info["trn1"]["partitions"] == 128 and info["trn3"]["PSUM banks x bytes"] == "8 x 2048"


def test_next_fit_rotates_loop_tiles_and_wraps():
    with run_context("trn2") as run:
        offsets = []
        for _ in range(3):
            t = nl.ndarray((128, 1024), nl.float32)      # the previous iteration's tile is freed here
            offsets.append(t.tv.offset)
        assert offsets == [0, 4096, 8192]                # rotated, not reused at once (multi-buffering)
        del t
        big = nl.ndarray((128, 52000), nl.float32)        # 208000 B: only fits from offset 0 again
        assert big.tv.offset == 0
        with pytest.raises(ConstraintError, match="holds at most 212984 bytes"):
            nl.ndarray((128, 4096), nl.float32)


def test_inputs_and_tensors_use_nki_dtypes_only():
    @nki.jit
    def k(a):
        return None

    with pytest.raises(ConstraintError, match="an NKI dtype"):
        nki.simulate(k)(np.zeros((2, 2), np.float64))
    with run_context("trn2"):
        with pytest.raises(ConstraintError, match="an NKI dtype"):
            nl.ndarray((2, 2), np.int64)


def test_launches_reuse_memories_and_nothing_leaks_between_them():
    """SBUF/PSUM are reused by the next launch on the same chip; a tile the next kernel never wrote
    still reads as poison (NaN), not as the previous launch's values."""
    import npusim.nki as nki_
    import npusim.nki.isa as nisa_
    import npusim.nki.language as nl_

    @nki_.jit
    def fill(a):
        t = nl_.ndarray(a.shape, a.dtype, buffer=nl_.sbuf)
        nisa_.dma_copy(dst=t, src=a)
        out = nl_.ndarray(a.shape, a.dtype, buffer=nl_.shared_hbm)
        nisa_.dma_copy(dst=out, src=t)
        return out

    @nki_.jit
    def read_unwritten(a):
        t = nl_.ndarray(a.shape, a.dtype, buffer=nl_.sbuf)      # same offset as fill's tile
        out = nl_.ndarray(a.shape, a.dtype, buffer=nl_.shared_hbm)
        nisa_.dma_copy(dst=out, src=t)
        return out

    x = np.full((128, 64), 7.0, np.float32)
    assert np.array_equal(nki_.simulate(fill, target="trn1")(x), x)
    first = nki_.last_run()
    from npusim.core.errors import UninitializedReadWarning
    with pytest.warns(UninitializedReadWarning):
        y = nki_.simulate(read_unwritten, target="trn1")(x)
    second = nki_.last_run()
    assert second.sbuf is first.sbuf                  # the memories were reused
    assert np.isnan(y).all()                          # ... and the old 7.0s did not leak through
    assert not second.sbuf.init.any() and not second.psum.init.any()   # init map reset after the launch


def test_outputs_are_not_shared_between_launches():
    """Outputs are handed out without a copy: a later launch must not change an earlier result."""
    import npusim.nki as nki_
    import npusim.nki.isa as nisa_
    import npusim.nki.language as nl_

    @nki_.jit
    def plus_one(a):
        t = nl_.ndarray(a.shape, a.dtype, buffer=nl_.sbuf)
        nisa_.dma_copy(dst=t, src=a)
        nisa_.tensor_scalar(dst=t, data=t, op0=nl_.add, operand0=1.0)
        out = nl_.ndarray(a.shape, a.dtype, buffer=nl_.shared_hbm)
        nisa_.dma_copy(dst=out, src=t)
        return out

    k = nki_.simulate(plus_one, target="trn2")
    y1 = k(np.zeros((128, 16), np.float32))
    y2 = k(np.full((128, 16), 5.0, np.float32))
    assert (y1 == 1.0).all() and (y2 == 6.0).all() and y1.shape == (128, 16) and y1.dtype == np.float32
