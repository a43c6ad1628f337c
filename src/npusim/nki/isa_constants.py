"""``nki.isa.constants``: the enums nki-library imports from there (``from nki.isa.constants import
dge_mode, oob_mode``, ``matmul_perf_mode``; ``from nki.isa import constants as nisa_constants``).

The same objects as ``nki.isa.<name>``: a kernel may mix both spellings.
"""
from __future__ import annotations

from .accum import reduce_cmd  # noqa: F401
from .isa import engine  # noqa: F401
from .isa_enums import dge_mode, dma_engine, oob_mode  # noqa: F401
from .isa_matmul import matmul_perf_mode  # noqa: F401
