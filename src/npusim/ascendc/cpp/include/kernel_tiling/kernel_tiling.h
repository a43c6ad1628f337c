// The toolchain's generated tiling header: npusim takes the structs from the op's *_tiling.h instead.
#pragma once
#include "../kernel_operator.h"
