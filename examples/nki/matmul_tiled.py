"""Tiled matmul C = A @ B with PSUM accumulation over K (the NKI matmul tutorial's tiled kernel, in the
current dst-first API). A arrives transposed (lhsT [K, M]) since TensorE contracts over partitions.
Each [128, 512] output tile sums K/128 nc_matmul results in one PSUM tile (accumulate=None: the first
write overwrites, later writes add), is copied PSUM -> SBUF (casting to the output dtype) and stored.
Published check (nki-samples test): allclose(atol=1e-4, rtol=1e-2) against the reference matmul."""
import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl

ATOL, RTOL = 1e-4, 1e-2


@nki.jit
def matmul_tiled(lhsT, rhs):
    K, M = lhsT.shape
    _, N = rhs.shape
    TILE_K = nl.tile_size.pmax                    # 128: contraction over partitions
    TILE_M = nl.tile_size.gemm_stationary_fmax    # 128
    TILE_N = min(N, nl.tile_size.gemm_moving_fmax)    # 512
    result = nl.ndarray((M, N), lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TILE_M):
        for n in nl.affine_range(N // TILE_N):
            acc = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TILE_K):
                a = nl.ndarray((TILE_K, TILE_M), lhsT.dtype, buffer=nl.sbuf)
                b = nl.ndarray((TILE_K, TILE_N), rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=a, src=lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
                nisa.dma_copy(dst=b, src=rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
                nisa.nc_matmul(dst=acc, stationary=a, moving=b)
            out = nl.ndarray((TILE_M, TILE_N), result.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=out, src=acc)
            nisa.dma_copy(dst=result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], src=out)
    return result


@nki.jit
def matmul_spmd(lhsT, rhs):
    """The same matmul as an SPMD kernel over a 2-D grid [M/128, N/512]: each program computes one
    output tile, picked by nl.program_id(0) and nl.program_id(1)."""
    K, M = lhsT.shape
    _, N = rhs.shape
    result = nl.ndarray((M, N), lhsT.dtype, buffer=nl.shared_hbm)
    m, n = nl.program_id(0), nl.program_id(1)
    cols = nl.ds(n * 512, 512)
    acc = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // 128):
        a = nl.load(lhsT[k * 128:(k + 1) * 128, m * 128:(m + 1) * 128])
        b = nl.load(rhs[k * 128:(k + 1) * 128, cols])
        nisa.nc_matmul(dst=acc, stationary=a, moving=b)
    out = nl.ndarray((128, 512), result.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=out, src=acc)
    nl.store(result[m * 128:(m + 1) * 128, cols], out)
    return result


def check(dtype, target="trn2", m=128, k=256, n=512, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c = nki.simulate(matmul_tiled, target=target)(np.ascontiguousarray(a.T), b)
    want = a.astype(np.float64) @ b.astype(np.float64)
    ok = c.dtype == a.dtype and np.allclose(c.astype(np.float64), want, atol=ATOL, rtol=RTOL)
    err = np.max(np.abs(c.astype(np.float64) - want))
    print(f"matmul_tiled {np.dtype(dtype).name} {m}x{k}x{n} on {target}: max abs err {err:.3g} "
          f"({'within' if ok else 'OUTSIDE'} atol={ATOL}, rtol={RTOL})")
    return ok


def check_spmd(target="trn2", m=256, k=256, n=1024):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = nki.simulate(matmul_spmd[m // 128, n // 512], target=target)(np.ascontiguousarray(a.T), b)
    ok = np.allclose(c, a.astype(np.float64) @ b, atol=ATOL, rtol=RTOL)
    print(f"matmul_spmd grid [{m // 128}, {n // 512}] {m}x{k}x{n} on {target}: "
          f"{'within' if ok else 'OUTSIDE'} atol={ATOL}, rtol={RTOL}")
    return ok


def main(target="trn2"):
    import ml_dtypes
    return check(np.float32, target) and check(ml_dtypes.bfloat16, target) and check_spmd(target)


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
