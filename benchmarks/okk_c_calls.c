/* npusim benchmark kernel: n calls of one cheap okk function, to time the C route's per-call overhead. */
#include "okk.h"
typedef struct {
    int n, which;
} __attribute__((packed)) param_t;

void calls(const void *args) {
    const param_t *p = (const param_t *)args;
    dim4 shape = {1, 64, 1, 32}, stride = {32, 32, 32, 1};
    int sum = 0;
    okk_initialize();
    for (int i = 0; i < p->n; i++) {
        if (p->which == 0)
            okk_bdc_add(0, 4096, 8192, &shape, &stride, &stride, &stride);
        else if (p->which == 1)
            okk_bdc_add_C(0, 4096, 1.5f, &shape, NULL, NULL);
        else
            sum += okk_npu_num();
    }
    okk_poll();
    (void)sum;
}
OKKERNEL_FUNC_REGISTER(calls);
