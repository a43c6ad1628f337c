// Host-side header a tiling header includes (operator registration): nothing the kernel build needs.
// npusim provides it empty so the op's *_tiling.h compiles unchanged.
#pragma once
