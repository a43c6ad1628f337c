"""The part-two ISA ops, re-exported into ``nki.isa`` (one import line at the end of isa.py)."""
from __future__ import annotations

from .accum import reduce_cmd  # noqa: F401
from .actfuncs import ActivationRangeWarning  # noqa: F401
from .isa_act import activation, activation_reduce  # noqa: F401
from .isa_gpsimd import affine_select, iota  # noqa: F401
from .isa_matmul import PsumAccumulateWarning, matmul_perf_mode, nc_matmul, nc_transpose  # noqa: F401
from .isa_reduce import tensor_partition_reduce, tensor_reduce, tensor_scalar_reduce  # noqa: F401
from .isa_vector import (FP32_MIN, bn_aggr, bn_stats, range_select, reciprocal,  # noqa: F401
                         scalar_tensor_tensor, select_reduce, tensor_copy_predicated, tensor_tensor_scan)

__all__ = ["nc_matmul", "nc_transpose", "matmul_perf_mode", "PsumAccumulateWarning", "reduce_cmd", "activation", "activation_reduce",
           "ActivationRangeWarning", "iota", "affine_select", "tensor_reduce", "tensor_partition_reduce",
           "tensor_scalar_reduce", "scalar_tensor_tensor", "tensor_tensor_scan", "reciprocal", "bn_stats",
           "bn_aggr", "tensor_copy_predicated", "select_reduce", "range_select", "FP32_MIN"]
