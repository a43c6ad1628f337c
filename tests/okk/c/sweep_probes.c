/* npusim probes of the contest sweep's findings (benchmarks/okk_contest_sweep.py, docs/okk.md C-model
   alignment): each instruction in its own okk_initialize..okk_poll section, so the C-model's per-section
   cycles are per-instruction cycles.
   which 0: matrix_S2L of an R x K matrix with cols_per_channel LCPC (may exceed K), the K x N right matrix
            (cols_per_channel RCPC), okk_bdc_matmul, matrix_L2S of the R x N product (cols_per_channel RCPC).
   which 1: okk_bdc_avg_pool2d / max_pool2d over shape (1, C, H, W) with a 3x3 window, pads 1, stride 1
            (C may exceed 4095); which 2: the same with max_pool2d.
   which 3: matrix_S2L then matrix_L2S of an R x K matrix with cols_per_channel LCPC (may exceed K). */
#include "okk.h"
typedef struct {
    int which, R, K, N, LCPC, RCPC, C, H, W;
    unsigned long long output_addr, input_addr, weight_addr;
} __attribute__((packed)) param_t;

void probe(const void *args) {
    const param_t *p = (const param_t *)args;
    okk_initialize();
    if (p->which == 0) {
        okk_gdma_32bit_matrix_S2L(0x20000, p->input_addr, p->R, p->K, p->LCPC, p->K);
        okk_poll(); okk_initialize();
        okk_gdma_32bit_matrix_S2L(0x40000, p->weight_addr, p->K, p->N, p->RCPC, p->N);
        okk_poll(); okk_initialize();
        okk_bdc_matmul(0, 0x20000, 0x40000, 0, p->R, p->K, p->N, p->LCPC, p->RCPC, false, false);
        okk_poll(); okk_initialize();
        okk_gdma_32bit_matrix_L2S(p->output_addr, 0, p->R, p->N, p->RCPC, p->N);
    } else if (p->which == 1 || p->which == 2) {
        dim4 shape = {1, p->C, p->H, p->W}, oshape = {1, p->C, p->H, p->W};
        local_addr_t in = 0x40000;
        okk_gdma_32bit_cpy_S2L(in, p->input_addr, &shape, NULL, NULL);    /* 128-byte aligned, as pools read */
        okk_poll(); okk_initialize();
        Padding pad = {1, 1, 1, 1};
        dim2 st = {1, 1};
        if (p->which == 1)
            okk_bdc_avg_pool2d(0, in, &shape, 3, 3, &pad, &st);
        else
            okk_bdc_max_pool2d(0, in, &shape, 3, 3, &pad, &st);
        okk_poll(); okk_initialize();
        okk_gdma_32bit_cpy_L2S(p->output_addr, 0, &oshape, NULL, NULL);
    } else if (p->which == 3) {
        okk_gdma_32bit_matrix_S2L(0x20000, p->input_addr, p->R, p->K, p->LCPC, p->K);
        okk_poll(); okk_initialize();
        okk_gdma_32bit_matrix_L2S(p->output_addr, 0x20000, p->R, p->K, p->LCPC, p->K);
    }
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(probe);
