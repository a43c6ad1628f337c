// npusim's Ascend C CPU headers: tiling structs of the vendor's high-level APIs that an op's tiling data may
// embed (TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, ...)), global as in the vendor's kernel_tiling.h.
// npusim.ascendc.cpp.tiling.VENDOR_STRUCTS has the same field lists for packing from Python.
#pragma once
#include <cstdint>

struct SoftMaxTiling {
    uint32_t srcM = 0, srcK = 0, srcSize = 0, outMaxM = 0, outMaxK = 0, outMaxSize = 0, splitM = 0, splitK = 0,
             splitSize = 0, reduceM = 0, reduceK = 0, reduceSize = 0, rangeM = 0, tailM = 0, tailSplitSize = 0,
             tailReduceSize = 0;
};
