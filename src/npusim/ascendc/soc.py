"""The SoCs npusim.ascendc knows, as Huawei names them, and what each one fixes.

Numbers are from ../shared/reference/ascendc.md §4.5 (CANN platform_config ini files and the devkit's
kernel_utils_constants.h) unless a field's comment says "assumption"; docs/ascendc.md lists them all.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..core.errors import ConstraintError
from . import dtypes as T

HALF_INT8 = (T.half, T.int8_t)
FLOAT_HALF = (T.float, T.half)
INT16_INT8 = (T.int16_t, T.int8_t)


@dataclass(frozen=True)
class SocSpec:
    name: str
    arch: int                       # __NPU_ARCH__: 2201 A2/A3, 2002 310P, 1001 910A, 3002 310B
    aic: int                        # cube cores (AI cores on coupled chips)
    aiv: int                        # vector cores a vector-only kernel runs on
    ub_bytes: int                   # Unified Buffer per vector core
    freq_mhz: float
    counter_mode: bool              # SetMaskCount supported
    float_overflow: str             # "inf" (INF/NaN kept) or "saturate" (inf -> +-max, NaN -> 0)
    max_que_buffers: int            # buffers per TQue position (8, or 4 on Atlas training)
    event_ids: int                  # SetFlag/WaitFlag ids usable by the kernel (the top two are reserved)
    gm_chip_gbps: float             # chip-wide GM bandwidth shared by all cores (assumption, see docs)
    addrelucast_pairs: frozenset = field(default_factory=frozenset)   # (src, dst) pairs
    mask_zero_is_error: bool = False                                  # 310P: Normal-mode mask 0 is an error
    vector_core_cnt: int | None = None    # the ini's vector_core_cnt when it differs from ``aiv`` (310P3)

    @property
    def freq_hz(self) -> float:
        return self.freq_mhz * 1e6

    @property
    def family(self) -> str:
        return {2201: "A2/A3", 2002: "310P", 1001: "910A", 3002: "310B"}[self.arch]


_A2_PAIRS = frozenset({HALF_INT8, FLOAT_HALF, INT16_INT8})
_KIB = 1024

SOCS: dict[str, SocSpec] = {s.name: s for s in [
    SocSpec("Ascend910B1", 2201, 24, 48, 192 * _KIB, 1850, True, "inf", 8, 6, 1600.0, _A2_PAIRS),
    SocSpec("Ascend910B4", 2201, 20, 40, 192 * _KIB, 1500, True, "inf", 8, 6, 1600.0, _A2_PAIRS),
    SocSpec("Ascend910_9391", 2201, 24, 48, 192 * _KIB, 1850, True, "inf", 8, 6, 1600.0, _A2_PAIRS),
    # 310P3 (Ascend310P3.ini: ai_core_cnt=8, vector_core_cnt=7): 8 coupled AI cores (each has its own
    # vector unit) + 7 Vector Cores; a vector kernel runs on the 8 AI cores here (AddReluCast, Cast and
    # the reductions are absent on the Vector Cores), so ``aiv`` = 8 and ``vector_core_cnt`` = 7.
    SocSpec("Ascend310P3", 2002, 8, 8, 256 * _KIB, 1060, True, "saturate", 8, 6, 204.8, _A2_PAIRS,
            mask_zero_is_error=True, vector_core_cnt=7),
    # 910A: core count and clock are assumptions (no 910A ini in the reference); UB 256 KiB per the
    # devkit's 1001 constants. 310B1: Ascend310B1.ini ai_core_cnt=1, vector_core_cnt=1, ub_size=253952,
    # cube_freq=1224 (the vector unit is in the AI core and runs at its clock).
    SocSpec("Ascend910A", 1001, 32, 32, 256 * _KIB, 1000, False, "saturate", 4, 2, 1200.0, frozenset()),
    SocSpec("Ascend310B1", 3002, 1, 1, 253952, 1224, True, "saturate", 8, 6, 51.2,
            frozenset({HALF_INT8, FLOAT_HALF})),
]}
DEFAULT_SOC = "Ascend910B1"


def get_soc(name: str | SocSpec | None) -> SocSpec:
    if isinstance(name, SocSpec):
        return name
    name = name or DEFAULT_SOC
    try:
        return SOCS[name]
    except KeyError:
        raise ConstraintError("launch", "soc", f"one of {', '.join(SOCS)}", name) from None


def info() -> dict[str, dict[str, object]]:
    out = {}
    for s in SOCS.values():
        out[s.name] = {
            "arch (__NPU_ARCH__)": s.arch, "AI cores (AIC)": s.aic,
            "vector cores (AIV)": s.aiv if s.vector_core_cnt is None else s.vector_core_cnt,
            "cores a vector kernel runs on": s.aiv,
            "UB bytes": s.ub_bytes, "clock MHz": s.freq_mhz, "counter mode": s.counter_mode,
            "float overflow": s.float_overflow, "TQue buffers per position": s.max_que_buffers,
            "SetFlag ids": s.event_ids,
            "AddReluCast pairs": ", ".join(f"{T.asc_name(a)}->{T.asc_name(b)}"
                                           for a, b in sorted(s.addrelucast_pairs, key=str)) or "none",
        }
    return out
