// The host tiling header's include: the macros live in npusim_kernel_extras.h.
#pragma once
#include "../kernel_operator.h"
