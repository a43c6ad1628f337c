/* npusim test kernel: ReLU over (N, C, H, W) fp32, one section, NULL strides. */
#include "okk.h"
#ifndef NULL
#define NULL 0
#endif
typedef struct {
    int N, C, H, W;
    unsigned long long output_addr;
    unsigned long long input_addr;
} __attribute__((packed)) param_t;

void relu_contest(const void *args) {
    param_t *param = (param_t *)args;
    okk_initialize();
    dim4 shape = {.n = param->N, .c = param->C, .h = param->H, .w = param->W};
    dim4 stride;
    okk_128_byte_aligned_stride_for_32bit(&stride, 0, &shape);
    local_addr_t in = 0, out = shape.n * stride.n * sizeof(float);
    OKKERNEL_ASSERT(out * 2 <= LOCAL_MEM_SIZE);
    okk_gdma_32bit_cpy_S2L(in, param->input_addr, &shape, NULL, NULL);
    okk_bdc_relu(out, in, &shape, NULL, NULL);
    okk_gdma_32bit_cpy_L2S(param->output_addr, out, &shape, NULL, NULL);
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(relu_contest);
