"""Small kernels the sweep tests run: an NKI tiled add whose tile shape is the swept parameter.
Module-level functions, so the local process pool can pickle them."""
import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl

SHAPE = (256, 1024)


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(SHAPE).astype(np.float32), rng.standard_normal(SHAPE).astype(np.float32))


def tiled_add(tile_p, tile_f):
    @nki.jit
    def kernel(a, b):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(a.shape[0] // tile_p):
            for j in nl.affine_range(a.shape[1] // tile_f):
                p, f = nl.ds(i * tile_p, tile_p), nl.ds(j * tile_f, tile_f)
                ta = nl.ndarray((tile_p, tile_f), a.dtype, buffer=nl.sbuf)
                tb = nl.ndarray((tile_p, tile_f), b.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=ta, src=a[p, f])
                nisa.dma_copy(dst=tb, src=b[p, f])
                tc = nl.ndarray((tile_p, tile_f), a.dtype, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=tc, data1=ta, data2=tb, op=nl.add)
                nisa.dma_copy(dst=out[p, f], src=tc)
        return out
    return kernel


def run(tile_p, tile_f, target="trn2"):
    a, b = inputs()
    return nki.simulate(tiled_add(tile_p, tile_f), target=target)(a, b)


def check(out, **config):
    a, b = inputs()
    return np.array_equal(out, a + b)


def run_wrong(tile_p, tile_f):
    """Runs, but adds the wrong thing: its rows fail the check with no error raised."""
    return run(tile_p, tile_f) + 1


def check_asserts(out, tile_p, tile_f):
    """A check written with assert: None passes, AssertionError fails."""
    assert tile_f == 512, f"tile_f {tile_f} is not the published tile"


def check_array(out, **config):
    """A mistaken check returning an array: its truth value is ambiguous, so the row fails with that error."""
    return out == out


def run_raises_value_error(tile_p, tile_f):
    if tile_f > 256:
        raise ValueError(f"tile_f {tile_f} outgrows the kernel's own budget")
    return run(tile_p, tile_f)
