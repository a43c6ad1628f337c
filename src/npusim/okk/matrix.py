"""Matrices in local memory (reference §2.4): an R x M matrix with cols_per_channel = Wm is the tensor
(R, ceil(M/Wm), 1, Wm) in the 128-byte aligned layout; the last channel holds the remainder columns.
A Matrix reads the elements of the matrix with init tracking; ``read_padded`` adds the padding columns
of the last channel as raw bytes (the FC unit computes them from whatever is there)."""
from __future__ import annotations

import numpy as np

from ..core.options import options
from . import initmap
from .fp32 import F32
from .layout import LANE, LocalTensor, aligned_stride
from .types import dim4


class Matrix:
    __slots__ = ("rows", "cols", "cpc", "parts", "footprints", "pad")

    def __init__(self, mem, api: str, param: str, addr: int, rows: int, cols: int, cpc: int):
        self.rows, self.cols, self.cpc = rows, cols, cpc
        nch = -(-cols // cpc)
        q = int(addr) // LANE
        st = aligned_stride(None, q, dim4(rows, nch, 1, cpc), 4)
        full, rem = divmod(cols, cpc)
        self.parts = []
        if full:
            self.parts.append((0, full * cpc, LocalTensor(mem, api, param, addr, dim4(rows, full, 1, cpc), st, F32, 4)))
        if rem:
            # channel `full` starts on NPU (q + full) % 64, row (q + full) // 64 of this tensor
            lane, row = (q + full) % 64, (q + full) // 64
            a = lane * LANE + int(addr) % LANE + row * st.c * 4
            self.parts.append((full * cpc, cols, LocalTensor(mem, api, param, a, dim4(rows, 1, 1, rem),
                                                             dim4(st.n, st.c, st.h, 1), F32, 4)))
        self.pad = None
        if rem:
            self.pad = LocalTensor(mem, api, param, a + 4 * rem, dim4(rows, 1, 1, cpc - rem),
                                   dim4(st.n, st.c, st.h, 1), F32, 4)
        self.footprints = [fp for _, _, t in self.parts for fp in t.footprints]

    def read(self) -> np.ndarray:
        out = np.empty((self.rows, self.cols), F32)
        for lo, hi, t in self.parts:
            if options().track_init and initmap.is_written(t):     # written: one copy, straight into out
                t.values_into(np.reshape(out[:, lo:hi], t.shape, copy=False))
            else:
                out[:, lo:hi] = t.read().reshape(self.rows, hi - lo)
        return out

    def read_padded(self) -> np.ndarray:
        """(rows, ceil(cols/cpc)*cpc): the matrix, then the last channel's padding as raw bytes."""
        if self.pad is None:
            return self.read()
        n = self.pad.shape[3]
        out = np.empty((self.rows, self.cols + n), F32)
        out[:, :self.cols] = self.read()
        out[:, self.cols:] = np.concatenate([v.array().reshape(self.rows, -1) for _, _, v in self.pad.pieces], 1)
        return out

    def write(self, values: np.ndarray) -> None:
        """Write (rows, cols) values, or (rows, padded cols) values including the padding columns."""
        for lo, hi, t in self.parts:
            t.write(np.ascontiguousarray(values[:, lo:hi]).reshape(t.shape))
        if self.pad is not None and values.shape[1] > self.cols:
            self.pad.write(np.ascontiguousarray(values[:, self.cols:]).reshape(self.pad.shape))

    @property
    def all_footprints(self):
        return self.footprints + (self.pad.footprints if self.pad is not None else [])
