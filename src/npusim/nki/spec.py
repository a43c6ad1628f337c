"""Chip constants of the three Trainium generations NKI targets (reference nki.md §1.1, §4).

Every number carries its source in docs/nki.md ("Chip constants"). ``sbuf_usable`` is what a kernel may
allocate per partition (nkipy's TargetInfo, mirroring the nki wheel); ``sbuf_physical`` is the arch
guide's figure, shown for information.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..core.errors import ConstraintError


@dataclass(frozen=True)
class Chip:
    name: str                    # "trn1", "trn2", "trn3"
    nc_version: int              # NeuronCore-v2 / v3 / v4 ("gen2" / "gen3" / "gen4")
    partitions: int
    sbuf_usable: int             # bytes per partition a kernel may allocate
    sbuf_physical: int           # bytes per partition in silicon
    psum_bytes: int              # bytes per partition
    psum_banks: int
    psum_bank_bytes: int
    clocks_hz: dict = field(default_factory=dict)        # engine -> Hz
    vector_width: str = ""                               # elements/cycle (documentation only)
    dma_queues: int = 16
    dma_bytes_per_ns: float = 17.0                        # achieved peak per DMA engine
    dma_fixed_ns: float = 1300.0                          # descriptor + semaphore latency per transfer

    @property
    def sbuf_total(self) -> int:
        return self.sbuf_physical * self.partitions

    def constants(self) -> dict[str, object]:
        d = {
            "NeuronCore": f"v{self.nc_version}",
            "partitions": self.partitions,
            "SBUF usable bytes/partition": self.sbuf_usable,
            "SBUF physical bytes/partition": self.sbuf_physical,
            "PSUM bytes/partition": self.psum_bytes,
            "PSUM banks x bytes": f"{self.psum_banks} x {self.psum_bank_bytes}",
            "Vector width (elem/cycle)": self.vector_width,
            "DMA queues": self.dma_queues,
            "DMA B/ns per queue": self.dma_bytes_per_ns,
            "DMA fixed latency ns": self.dma_fixed_ns,
        }
        for e, hz in self.clocks_hz.items():
            d[f"{e} clock GHz"] = hz / 1e9
        return d


CHIPS: dict[str, Chip] = {
    "trn1": Chip("trn1", 2, 128, 180224, 192 * 1024, 16384, 8, 2048,
                 {"tensor": 2.8e9, "vector": 1.12e9, "scalar": 1.4e9, "gpsimd": 1.4e9},
                 "128", 16, 17.0, 1300.0),
    "trn2": Chip("trn2", 3, 128, 212984, 224 * 1024, 16384, 8, 2048,
                 {"tensor": 2.4e9, "vector": 0.96e9, "scalar": 1.2e9, "gpsimd": 1.2e9},
                 "512 bf16/fp16, 256 other", 16, 23.0, 1300.0),
    "trn3": Chip("trn3", 4, 128, 245752, 256 * 1024, 16384, 8, 2048,
                 {"tensor": 2.4e9, "vector": 1.2e9, "scalar": 1.2e9, "gpsimd": 1.2e9},
                 "512 bf16/fp16/fp8, 256 other", 16, 33.0, 1300.0),
}

#: Names NEURON_PLATFORM_TARGET_OVERRIDE accepts (reference §3.1).
ALIASES = {"trn1": "trn1", "inf2": "trn1", "gen2": "trn1", "trn2": "trn2", "gen3": "trn2",
           "trn3": "trn3", "gen4": "trn3"}

DEFAULT_TARGET = "trn2"


def chip(target: str | None = None) -> Chip:
    """The chip for ``target``; None means NEURON_PLATFORM_TARGET_OVERRIDE, else trn2."""
    if target is None:
        target = os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE") or DEFAULT_TARGET
    key = ALIASES.get(str(target).lower())
    if key is None:
        raise ConstraintError("nki.simulate", "target", "one of " + ", ".join(ALIASES), target)
    return CHIPS[key]
