"""The okk.h helpers: chip constants, address helpers, stride helpers, parallel mode, poll, log."""
from __future__ import annotations

import sys

from ..core.errors import ConstraintError, NpuSimError
from . import args, layout, spec
from .device import current
from .types import dim4


def okk_npu_num() -> int:
    return spec.NPU_NUM


def okk_eu_num() -> int:
    return spec.EU_NUM


def okk_local_mem_size_per_npu() -> int:
    return spec.LOCAL_MEM_SIZE


def okk_local_mem_bank_per_npu() -> int:
    return spec.LOCAL_MEM_BANKS


def okk_local_mem_start_addr() -> int:
    return spec.LOCAL_MEM_START


def okk_global_mem_start_addr() -> int:
    return spec.GLOBAL_MEM_START


def okk_l2_sram_start_addr() -> int:
    return spec.L2_SRAM_START


def okk_l2_sram_size() -> int:
    return spec.L2_SRAM_SIZE


def okk_dtcm_start_addr() -> int:
    return spec.DTCM_START


def okk_dtcm_size() -> int:
    return spec.DTCM_SIZE


def okk_lookup_table_start_addr() -> int:
    return spec.LOOKUP_TABLE_START


def okk_lookup_table_size() -> int:
    return spec.LOOKUP_TABLE_SIZE


def okk_start_npu_index(addr: int) -> int:
    """The NPU a local address starts at: addr >> 19."""
    return args.u32("okk_start_npu_index", "addr", addr) >> 19


def okk_channle_num_per_npu(start_idx: int, num_channels: int) -> int:
    """(sic, the vendor's spelling) Channels per NPU: ceil((start_idx + C) / 64)."""
    api = "okk_channle_num_per_npu"
    start_idx = args.c_int(api, "start_idx", start_idx, 0, spec.NPU_NUM - 1)
    num_channels = args.c_int(api, "num_channels", num_channels, 0)
    return (start_idx + num_channels - 1) // spec.NPU_NUM + 1


def _stride_helper(api: str, stride, start_idx, shape, with_start: bool = True):
    stride = args.out_dim4(api, "stride", stride)
    start_idx = args.c_int(api, "start_idx", start_idx, 0, spec.NPU_NUM - 1) if with_start else 0
    shape = args.dim4_arg(api, "shape", shape)
    for f in "nchw":
        args.c_int(api, f"shape->{f}", getattr(shape, f), 0, rule=f"shape->{f} is not negative")
    return stride, start_idx, shape


def okk_128_byte_aligned_stride_for_32bit(stride: dim4 | None, start_idx: int, shape: dim4) -> dim4:
    return layout.aligned_stride(*_stride_helper("okk_128_byte_aligned_stride_for_32bit", stride, start_idx, shape), 4)


def okk_128_byte_aligned_stride_for_16bit(stride: dim4 | None, start_idx: int, shape: dim4) -> dim4:
    return layout.aligned_stride(*_stride_helper("okk_128_byte_aligned_stride_for_16bit", stride, start_idx, shape), 2)


def okk_128_byte_aligned_stride_for_8bit(stride: dim4 | None, start_idx: int, shape: dim4) -> dim4:
    return layout.aligned_stride(*_stride_helper("okk_128_byte_aligned_stride_for_8bit", stride, start_idx, shape), 1)


def okk_compact_stride(stride: dim4 | None, start_idx: int, shape: dim4) -> dim4:
    return layout.compact_stride(*_stride_helper("okk_compact_stride", stride, start_idx, shape))


def okk_continuous_stride(stride: dim4 | None, shape: dim4) -> dim4:
    stride, _, shape = _stride_helper("okk_continuous_stride", stride, 0, shape, with_start=False)
    return layout.continuous_stride(stride, shape)


def okk_initialize() -> None:
    current().initialize()


def okk_poll() -> None:
    current().poll("okk_poll")


def okk_parallel_start() -> None:
    current().begin_parallel("okk_parallel_start")


def okk_parallel_end() -> None:
    current().end_parallel("okk_parallel_end")


def okk_is_parallel_state() -> bool:
    return current().parallel


def OKKERNEL_LOG(fmt: str, *args) -> None:  # noqa: F811 - args shadows the module like the C macro's __VA_ARGS__
    """printf in the C-model: a C format string with its arguments."""
    if not isinstance(fmt, str):
        raise ConstraintError("OKKERNEL_LOG", "fmt", "a format string", fmt)
    try:
        text = fmt % args if args else fmt
    except (TypeError, ValueError, KeyError, OverflowError) as e:
        raise ConstraintError("OKKERNEL_LOG", "fmt", f"the format matches its arguments ({e})", (fmt, args)) from None
    sys.stdout.write(text)


class KernelAssertionError(NpuSimError, AssertionError):
    """OKKERNEL_ASSERT failed (the C-model aborts): an npusim error that is also an AssertionError."""


def OKKERNEL_ASSERT(cond) -> None:
    """assert in the C-model."""
    try:
        ok = bool(cond)
    except Exception as e:     # noqa: BLE001 - e.g. a numpy array of several elements has no truth value
        raise ConstraintError("OKKERNEL_ASSERT", "cond", "a value with a truth value", type(cond).__name__) from e
    if not ok:
        raise KernelAssertionError("OKKERNEL_ASSERT failed")
