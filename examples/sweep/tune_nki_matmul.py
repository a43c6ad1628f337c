"""Tune the NKI tiled matmul's tile sizes (examples/nki/matmul_tiled.py with TILE_M/N/K as parameters):
which tiling of C[256, 1024] = A @ B over K = 512 does the trn2 cost model say is fastest?

Tiles beyond the engine limits (stationary free size > 128, moving free size > 512, contraction > 128
partitions) are rows with their NkiValidationError, not crashes. Also a `npusim sweep` kernel file:
  npusim sweep examples/sweep/tune_nki_matmul.py --param tile_m=64,128 --param tile_n=256,512 --param tile_k=128
Run: PYTHONPATH=src python examples/sweep/tune_nki_matmul.py [--plot tune_nki_matmul.png] [--workers N]
"""
import argparse

import numpy as np

import npusim
import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl

M, K, N = 256, 512, 1024
SPACE = {"tile_m": [64, 128, 256], "tile_n": [128, 256, 512, 1024], "tile_k": [64, 128]}


def tiled_matmul(tile_m, tile_n, tile_k):
    @nki.jit
    def matmul(lhsT, rhs):
        result = nl.ndarray((M, N), lhsT.dtype, buffer=nl.shared_hbm)
        for m in nl.affine_range(M // tile_m):
            for n in nl.affine_range(N // tile_n):
                acc = nl.ndarray((tile_m, tile_n), nl.float32, buffer=nl.psum)
                for k in nl.affine_range(K // tile_k):
                    a = nl.ndarray((tile_k, tile_m), lhsT.dtype, buffer=nl.sbuf)
                    b = nl.ndarray((tile_k, tile_n), rhs.dtype, buffer=nl.sbuf)
                    nisa.dma_copy(dst=a, src=lhsT[k * tile_k:(k + 1) * tile_k, m * tile_m:(m + 1) * tile_m])
                    nisa.dma_copy(dst=b, src=rhs[k * tile_k:(k + 1) * tile_k, n * tile_n:(n + 1) * tile_n])
                    nisa.nc_matmul(dst=acc, stationary=a, moving=b)
                out = nl.ndarray((tile_m, tile_n), result.dtype, buffer=nl.sbuf)
                nisa.tensor_copy(dst=out, src=acc)
                nisa.dma_copy(dst=result[m * tile_m:(m + 1) * tile_m, n * tile_n:(n + 1) * tile_n], src=out)
        return result
    return matmul


def inputs():
    rng = np.random.default_rng(0)
    return rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)


def run(tile_m, tile_n, tile_k):
    a, b = inputs()
    return nki.simulate(tiled_matmul(tile_m, tile_n, tile_k), target="trn2")(np.ascontiguousarray(a.T), b)


def check(c, **config):
    a, b = inputs()
    return np.allclose(c, a.astype(np.float64) @ b, atol=1e-4, rtol=1e-2)   # the published tolerance


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--plot", default="tune_nki_matmul.png")
    p.add_argument("--workers", type=int, help="local processes (default: all cores)")
    args = p.parse_args(argv)
    result = npusim.sweep(run, SPACE, check=check, executor=args.workers)
    from rich.console import Console
    Console().print(result)
    best = result.best()
    print(f"best tiling: {best.config}: {best.sim_ns / 1e3:.2f} us simulated, {best.instructions} instructions, "
          f"PE (tensor engine) {100 * best.util.get('tensor', 0):.0f}% busy")
    result.plot(args.plot, title="NKI tiled matmul 256x512x1024 on trn2")
    print(f"plot written to {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
