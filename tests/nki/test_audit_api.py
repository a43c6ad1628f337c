"""API surface from the NKI audit: DMA enums, jit(platform_target=), program_ndim without a grid,
nl.copy's buffer and engine, tile_size's SBUF sizes."""
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import run_context


def test_dma_copy_accepts_dge_and_oob_enums():
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a, dge_mode=nisa.dge_mode.none, oob_mode=nisa.oob_mode.error)
        nisa.dma_copy(dst=out, src=t, dge_mode=nisa.dge_mode.hwdge, oob_mode=nisa.oob_mode.skip)
        return out
    a = np.random.default_rng(1).random((128, 64), np.float32)
    np.testing.assert_array_equal(nki.simulate(k)(a), a)
    assert [m.name for m in nisa.dge_mode] == ["unknown", "swdge", "hwdge", "none"]


def test_dma_copy_rejects_raw_mode_values():
    """A raw int is accepted only when it is a member's value (nki-library passes ``dge_mode=3``, its
    ``_DGE_MODE_NONE``, and runs on the chip); any other value is refused."""
    @nki.jit
    def k(a, mode):
        t = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a, dge_mode=mode)
    nki.simulate(k)(np.ones((128, 4), np.float32), 3)
    with pytest.raises(ConstraintError, match="dge_mode"):
        nki.simulate(k)(np.ones((128, 4), np.float32), 7)


def test_dma_engine_is_the_current_apis_sendrecv_enum():
    """The current stub's ``class dma_engine(Enum)`` (dma = 1, gpsimd_dma = 2, sendrecv's transfer mode)
    replaces the older ``dma_engine = engine.dma`` alias; ``engine.dma`` itself stays."""
    assert nisa.dma_engine.dma.value == 1 and nisa.dma_engine.gpsimd_dma.value == 2
    assert nisa.engine.dma is not None


def _nc_version_kernel():
    got = {}

    def k(a):
        got["nc"] = nisa.get_nc_version()
    return k, got


def test_jit_platform_target_is_honoured():
    k, got = _nc_version_kernel()
    nki.jit(platform_target="trn1")(k)(np.ones((1, 1), np.float32))
    assert got["nc"] == nisa.nc_version.gen2
    nki.jit(k, platform_target="trn3")(np.ones((1, 1), np.float32))
    assert got["nc"] == nisa.nc_version.gen4
    # an explicit simulate target wins
    nki.simulate(nki.jit(platform_target="trn1")(k), target="trn2")(np.ones((1, 1), np.float32))
    assert got["nc"] == nisa.nc_version.gen3


def test_jit_platform_target_unknown_is_an_error():
    with pytest.raises(ConstraintError, match="target"):
        nki.jit(platform_target="trn9")


def test_program_ndim_is_zero_without_a_grid():
    got = []

    @nki.jit
    def k(a):
        got.append((nl.program_ndim(), nl.num_programs(), nl.program_id(0)))
    k(np.ones((1, 1), np.float32))
    k[2, 3](np.ones((1, 1), np.float32))
    k[4](np.ones((1, 1), np.float32))
    assert got[0] == (0, 1, 0)
    assert {g[0] for g in got[1:7]} == {2} and got[-1][0] == 1


def test_nl_copy_of_psum_stays_in_psum_via_scalar_engine():
    with run_context("trn2") as run:
        big = np.float32(2 ** 24 + 1)               # not an fp32 value: int32 through fp32 rounds
        p = nl.ndarray((128, 8), nl.float32, buffer=nl.psum)
        p.write(np.arange(128 * 8, dtype=np.float32).reshape(128, 8))
        c = nl.copy(p)
        assert c.buffer is nl.psum
        np.testing.assert_array_equal(c.numpy(), p.numpy())
        engines = run.timeline.engines
        assert engines["scalar"].free_ns > 0 and engines["vector"].free_ns == 0     # ScalarE did the copy
        i = nl.ndarray((128, 1), nl.int32)
        i.write(np.full((128, 1), 2 ** 24 + 1, np.int32))
        ci = nl.copy(i)
        assert ci.buffer is nl.sbuf
        assert (ci.numpy() == int(big)).all() and int(big) == 2 ** 24   # cast through fp32 (docstring)


def test_nl_copy_needs_an_on_chip_tile():
    with run_context("trn2") as run:
        h = nl.ndarray((128, 8), nl.float32, buffer=nl.hbm)
        with pytest.raises(ConstraintError, match="SBUF or PSUM"):
            nl.copy(h)


@pytest.mark.parametrize("target, usable", [("trn1", None), ("trn2", 212984), ("trn3", None)])
def test_tile_size_sbuf_sizes_follow_the_target(target, usable):
    got = {}

    @nki.jit
    def k(a):
        got["fmax"] = nl.tile_size.sbuf_fmax_bytes
        got["total"] = nl.tile_size.total_available_sbuf_size
    nki.simulate(k, target=target)(np.ones((1, 1), np.float32))
    want = nki.chip(target).sbuf_usable
    assert got == {"fmax": want, "total": want}
    if usable is not None:
        assert want == usable
    assert nl.tile_size.pmax == 128 and nl.tile_size.psum_bank_fmax == 512


def test_tile_size_sbuf_sizes_need_a_kernel():
    with pytest.raises(ConstraintError, match="inside a kernel"):
        nl.tile_size.sbuf_fmax_bytes
