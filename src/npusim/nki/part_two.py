"""The part-two ISA ops, re-exported into ``nki.isa`` (one import line at the end of isa.py)."""
from __future__ import annotations

from .isa_matmul import matmul_perf_mode, nc_matmul, nc_transpose  # noqa: F401

__all__ = ["nc_matmul", "nc_transpose", "matmul_perf_mode"]
