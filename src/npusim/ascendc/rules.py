"""The checks Huawei's CPU debug mode makes (ascendc.md §5.2), each a ConstraintError naming the rule."""
from __future__ import annotations

from ..core.errors import ConstraintError
from .args import as_int
from .dtypes import asc_name
from .tensor import LocalTensor, TPosition

VECTOR_POSITIONS = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)
MAX_REPEAT_TIMES = 255
UINT32_MAX = (1 << 32) - 1
UINT64_MAX = (1 << 64) - 1


def check_vector_tensor(api: str, name: str, t) -> None:
    if not isinstance(t, LocalTensor):
        raise ConstraintError(api, name, "a LocalTensor", type(t).__name__)
    if t.position not in VECTOR_POSITIONS:
        raise ConstraintError(api, name, "Failed to check tensor position: supported positions are "
                              "VECIN / VECCALC / VECOUT", t.position.name)
    check_not_freed(api, name, t)
    if t.addr % 32:
        raise ConstraintError(api, name, "Failed to check start address alignment: its start address must "
                              "align with 32B", f"UB+{t.addr:#x}")


def check_dtypes(api: str, name: str, t, allowed, soc) -> None:
    d = t.dtype
    if all(d is not a for a in allowed):
        raise ConstraintError(api, name, f"dtype one of {', '.join(asc_name(d) for d in allowed)} on "
                              f"{soc.name}", asc_name(t.dtype))


def check_pair(api: str, src, dst, pairs, soc) -> None:
    if not any(a is src and b is dst for a, b in pairs):
        # A product without the API has no supported pair: the same dtype static_assert fails (AddReluCast.md).
        ok = ", ".join(f"{asc_name(a)}->{asc_name(b)}" for a, b in sorted(pairs, key=str)) or "none"
        raise ConstraintError(api, "dtype", f"Failed to check dtype in {api}: supported src->dst pairs on "
                              f"{soc.name} are {ok}", f"{asc_name(src)}->{asc_name(dst)}")


def check_repeat(api: str, repeat) -> int:
    return as_int(api, "repeatTime", repeat, 0, MAX_REPEAT_TIMES, f"0 <= repeatTime <= {MAX_REPEAT_TIMES}")


def check_count(api: str, count) -> int:
    return as_int(api, "count", count, 0, UINT32_MAX, "0 <= count <= UINT32_MAX")


def check_u8(api: str, name: str, v) -> int:
    return as_int(api, name, v, 0, 255, "a uint8_t in [0, 255]")


def check_u16(api: str, name: str, v) -> int:
    return as_int(api, name, v, 0, 65535, "a uint16_t in [0, 65535]")


def check_not_freed(api: str, name: str, t) -> None:
    """A queue tensor used after its FreeTensor (and before the buffer is allocated again): the queue's
    events no longer order it, so neither the compiler's auto-sync nor a flag can make it safe."""
    b = t.buffer
    if b is not None and b.state == "free":
        raise ConstraintError(api, name, "queue misuse: a tensor is not used after FreeTensor (its buffer "
                              "belongs to the queue again)", t)
