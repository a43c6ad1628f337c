"""Tiled tensor add over an SPMD grid: each program adds its (128 x 512) tiles of a and b.

Run: PYTHONPATH=src python examples/nki/tensor_add_spmd.py  (or `npusim run` it for the timeline)
"""
import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl

TILE_P, TILE_F = 128, 512


@nki.jit
def tensor_add(a, b):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    rows = a.shape[0] // nl.num_programs(0)            # this program's band of rows
    row0 = nl.program_id(0) * rows
    for i in nl.affine_range(rows // TILE_P):
        for j in nl.affine_range(a.shape[1] // TILE_F):
            p, f = nl.ds(row0 + i * TILE_P, TILE_P), nl.ds(j * TILE_F, TILE_F)
            ta = nl.ndarray((TILE_P, TILE_F), a.dtype, buffer=nl.sbuf)
            tb = nl.ndarray((TILE_P, TILE_F), b.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=ta, src=a[p, f])
            nisa.dma_copy(dst=tb, src=b[p, f])
            tc = nl.ndarray((TILE_P, TILE_F), a.dtype, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=tc, data1=ta, data2=tb, op=nl.add)
            nisa.dma_copy(dst=out[p, f], src=tc)
    return out


def main(shape=(1024, 2048), grid=4, target="trn2"):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape).astype(np.float32)
    c = nki.simulate(tensor_add[grid], target=target)(a, b)
    ok = np.array_equal(c, a + b)
    run = nki.last_run()
    print(f"tensor_add {shape} over grid [{grid}]: {'matches' if ok else 'DIFFERS FROM'} numpy; "
          f"{len(run.trace.events)} instructions, {run.trace.total_ns / 1e3:.1f} us simulated")
    return ok


if __name__ == "__main__":
    if not main():
        raise SystemExit(1)
