"""Matrix multiplication (M x K) @ (K x N), tiled over the 512 KiB local memory of each NPU the
OKKernel way, checked at the contest tolerance (1e-4) on the contest-1 shapes that run in seconds
(reference §5); the others are listed with the modelled cycles of the same tiling plan (--plan).

Tiling: the right operand in tiles of (k_t x n_t) with right_cols_per_channel = ceil(n_t / 64) so a
tile's channels fill one row of NPUs; the left operand in tiles of (m_t x k_t) the same way; when K
does not fit, partial products accumulate in the output tile with ``result_add``. Matrices move with
okk_gdma_32bit_matrix_S2L / _L2S and a row stride, so no host-side reshaping is needed.

Run: ``PYTHONPATH=src python examples/okk/matmul.py [--plan]``.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from npusim import okk

from contest import Host, contest_ok

CASES = [(100, 200, 150), (2, 1280, 1000), (32, 2048, 36), (300, 2048, 80), (256, 768, 3072),
         (2, 100352, 2048), (2, 25088, 4096), (4, 1024, 25088), (64, 9216, 4096), (79, 256, 4090),
         (200, 4096, 324), (256, 3072, 768), (1024, 1024, 1024), (2048, 4, 1024), (12544, 2, 1024),
         (100352, 1024, 1)]
QUICK = 5                                    # the first five run by default
RIGHT, LEFT, OUT = 0x0, 0x40000, 0x58000     # 256 KiB, 96 KiB, 128 KiB of each NPU
TOL = 1e-4


def _row_bytes(cpc: int) -> int:
    return -(-cpc // 32) * 128                # one matrix row of one NPU, 128-byte aligned


def plan(M: int, K: int, N: int):
    """(m_t, k_t, n_t, lcpc, rcpc) of the tiling."""
    n_t = min(N, 64 * 128)
    rcpc = min(128, -(-n_t // 64))
    k_t = min(K, (LEFT - RIGHT) // _row_bytes(rcpc), 65535)
    lcpc = min(128, -(-k_t // 64))
    m_t = min(M, (OUT - LEFT) // _row_bytes(lcpc), (0x80000 - OUT) // _row_bytes(rcpc), 65535)
    return m_t, k_t, n_t, lcpc, rcpc


def matmul(out, left, right, M, K, N):
    m_t, k_t, n_t, _, _ = plan(M, K, N)
    okk.okk_initialize()
    for n0 in range(0, N, n_t):
        nn = min(n_t, N - n0)
        rcpc = min(128, -(-nn // 64))
        for m0 in range(0, M, m_t):
            mm = min(m_t, M - m0)
            for k0 in range(0, K, k_t):
                kk = min(k_t, K - k0)
                lcpc = min(128, -(-kk // 64))
                if K > k_t or m0 == 0:
                    okk.okk_gdma_32bit_matrix_S2L(RIGHT, right + 4 * (k0 * N + n0), kk, nn, rcpc, N)
                okk.okk_gdma_32bit_matrix_S2L(LEFT, left + 4 * (m0 * K + k0), mm, kk, lcpc, K)
                okk.okk_bdc_matmul(OUT, LEFT, RIGHT, 0, mm, kk, nn, lcpc, rcpc, False, k0 > 0)
            okk.okk_gdma_32bit_matrix_L2S(out + 4 * (m0 * N + n0), OUT, mm, nn, rcpc, N)
    okk.okk_poll()


def estimate(M, K, N) -> int:
    """Modelled cycles of the same plan without computing (Sophgo's FC_FP32 and GDMA formulas)."""
    from npusim.okk import cost
    from npusim.okk.bdc_matmul import fc_cycles
    m_t, k_t, n_t, _, _ = plan(M, K, N)
    total = 0
    for n0 in range(0, N, n_t):
        nn = min(n_t, N - n0)
        rcpc = min(128, -(-nn // 64))
        for m0 in range(0, M, m_t):
            mm = min(m_t, M - m0)
            for k0 in range(0, K, k_t):
                kk = min(k_t, K - k0)
                lcpc = min(128, -(-kk // 64))
                if K > k_t or m0 == 0:
                    total += cost.gdma_cycles("S2L", kk * nn * 4, min(nn, rcpc) * 4)
                total += cost.gdma_cycles("S2L", mm * kk * 4, min(kk, lcpc) * 4)
                total += fc_cycles(0, mm, kk, nn, rcpc, False, k0 > 0)
            # matrix_L2S is costed over the padded columns ceil(nn / rcpc) * rcpc (as in the C-model)
            total += cost.gdma_cycles("L2S", mm * -(-nn // rcpc) * rcpc * 4, min(nn, rcpc) * 4)
    return total


def run(M, K, N, seed=0):
    r = np.random.default_rng(seed)
    a = r.uniform(-1, 1, (M, K)).astype(np.float32)
    b = r.uniform(-1, 1, (K, N)).astype(np.float32)
    host = Host(4 * (M * K + K * N + M * N))
    with host.dev:
        la, rb = host.upload(a), host.upload(b)
        out = host.malloc(4 * M * N)
        matmul(out, la, rb, M, K, N)
        y = host.download(out, (M, N))
    return y, a.astype(np.float64) @ b.astype(np.float64), host.dev


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--plan", action="store_true", help="print the modelled cycles of every contest case")
    args = p.parse_args(argv)
    ok = True
    if args.plan:
        for M, K, N in CASES:
            c = estimate(M, K, N)
            print(f"matmul {M}x{K}x{N}: plan {plan(M, K, N)}, ~{c:,} cycles (~{c / 550e3:,.1f} ms modelled)")
        return 0
    for M, K, N in CASES[:QUICK]:
        y, ref, dev = run(M, K, N)
        good, worst = contest_ok(y, ref, TOL)
        ok &= good
        print(f"matmul {M}x{K}x{N}: worst rel err {worst:.2e} ({'ok' if good else 'FAILED'} at {TOL}), "
              f"{dev.total_cycles:,} cycles ({dev.total_ns / 1e3:,.1f} us modelled), {len(dev.events)} instructions")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
