// Host-side header a tiling header includes (the high-level APIs' host tiling functions): nothing the
// kernel build needs. npusim provides it empty so the op's *_tiling.h compiles unchanged.
#pragma once
#include "../kernel_operator.h"
