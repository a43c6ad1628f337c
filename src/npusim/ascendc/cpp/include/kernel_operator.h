// npusim's kernel_operator.h: the Ascend C kernel API on the simulator (see docs/ascendc.md,
// "Run your .cpp kernel"). Part 1 keywords and types, part 2 classes, part 3 the generated API.
#pragma once
#include "npusim_base.h"
#include "npusim_gen_types.h"
#include "npusim_classes.h"
#include "npusim_gen_api.h"
#include "npusim_kernel_extras.h"
