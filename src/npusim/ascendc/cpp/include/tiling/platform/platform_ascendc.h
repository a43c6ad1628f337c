// Host-side header a tiling header includes (platform queries for the host tiling code): nothing the
// kernel build needs. npusim provides it empty so the op's *_tiling.h compiles unchanged.
#pragma once
