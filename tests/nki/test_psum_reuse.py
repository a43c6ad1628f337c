"""A new PSUM tile on bytes a freed tile used starts a new accumulation group: the first nc_matmul
(accumulate=None) overwrites, it does not add onto the freed tile's values (the freed tile's init map
is cleared before the group is decided)."""
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl


@pytest.mark.parametrize("target", ["trn1", "trn2", "trn3"])
def test_matmul_into_a_tile_on_reused_psum_bytes_overwrites(target):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((128, 128)).astype(np.float32)
    b = rng.standard_normal((128, 512)).astype(np.float32)

    @nki.jit
    def k(x, y):
        out = nl.ndarray((128, 512), nl.float32, buffer=nl.shared_hbm)
        xs, ys = nl.load(x), nl.load(y)
        fives = nl.full((128, 256), 5.0, nl.float32)
        for i in nl.static_range(8):            # fill every bank, each half-written through a view
            old = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)
            nisa.tensor_copy(old[:, 0:256], fives)
            del old                             # freed: its init bytes say "written"
        ps = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)     # wraps onto a freed bank
        nisa.nc_matmul(ps, xs, ys)
        sb = nl.ndarray((128, 512), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(sb, ps)
        nisa.dma_copy(dst=out, src=sb)
        return out
    np.testing.assert_allclose(nki.simulate(k, target=target)(a, b), a.T @ b, rtol=1e-5, atol=1e-4)
