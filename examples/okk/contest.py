"""Host-side helpers shared by the contest examples: device set-up, uploads, and the contest's pass
criterion ``|out - ref| < tol * max(|out|, |ref|, 1)`` (pairs where both are non-finite are skipped),
reference okkernel.md §3.1."""
from __future__ import annotations

import numpy as np

from npusim import okk


def contest_ok(out: np.ndarray, ref: np.ndarray, tol: float) -> tuple[bool, float]:
    """(pass, worst |out - ref| / max(|out|, |ref|, 1))."""
    o = np.asarray(out, np.float64).ravel()
    r = np.asarray(ref, np.float64).ravel()
    skip = ~np.isfinite(o) & ~np.isfinite(r)
    o, r = o[~skip], r[~skip]
    with np.errstate(invalid="ignore"):
        rel = np.abs(o - r) / np.maximum(np.maximum(np.abs(o), np.abs(r)), 1.0)
    worst = float(np.nanmax(rel)) if rel.size else 0.0
    return bool(np.all(rel < tol)), worst


class Host:
    """bm_malloc_device_byte / bm_memcpy_s2d / bm_memcpy_d2s over one okk.Device."""

    def __init__(self, nbytes: int):
        self.dev = okk.Device(global_mem_bytes=max(nbytes + (1 << 20), 1 << 24))
        self.next = okk.spec.GLOBAL_MEM_START

    def malloc(self, nbytes: int) -> int:
        a = self.next
        self.next += (nbytes + 4095) // 4096 * 4096
        return a

    def upload(self, x: np.ndarray) -> int:
        a = self.malloc(x.nbytes)
        self.dev.write_system(a, np.ascontiguousarray(x))
        return a

    def download(self, addr: int, shape, dtype=np.float32) -> np.ndarray:
        return self.dev.read_system(addr, shape, dtype)
