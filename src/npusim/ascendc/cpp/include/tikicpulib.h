// Huawei's CPU debug library header: npusim's kernel_operator.h plays its part.
#pragma once
#include "kernel_operator.h"
