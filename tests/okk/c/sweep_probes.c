/* npusim probes of the contest sweep's findings (benchmarks/okk_contest_sweep.py, docs/okk.md C-model
   alignment): each instruction in its own okk_initialize..okk_poll section, so the C-model's per-section
   cycles are per-instruction cycles.
   which 0: matrix_S2L of an R x K matrix with cols_per_channel LCPC (may exceed K), the K x N right matrix
            (cols_per_channel RCPC), okk_bdc_matmul, matrix_L2S of the R x N product (cols_per_channel RCPC).
   which 1: okk_bdc_avg_pool2d / max_pool2d over shape (1, C, H, W) with a 3x3 window, pads 1, stride 1
            (C may exceed 4095); which 2: the same with max_pool2d.
   which 3: matrix_S2L then matrix_L2S of an R x K matrix with cols_per_channel LCPC (may exceed K).
   which 4: cpy_S2L then cpy_L2S of (1, C, H, W) (C may exceed 65535), the system side with an explicit
            continuous stride and the local side NULL (128-byte aligned), as Sophgo's pool demos do;
   which 5: the same with both strides NULL; which 6: only the cpy_L2S with both strides NULL.
   which 4..6 use the local address K * 0x80000 (start NPU K).
   which 7: okk_bdc_mul_C (N == 0) or okk_bdc_add (N == 1) over (1, C, H, W), NULL strides (C may exceed 4095);
            N == 2, 3: the same with explicit 128-byte aligned strides.
   which 8: R tiny okk_bdc_add_C in one section, each in its own parallel region when K == 1.
   which 9: R tiny okk_gdma_32bit_set_C_local in one section. */
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
    } else if (p->which == 4 || p->which == 5 || p->which == 6) {
        dim4 shape = {1, p->C, p->H, p->W};
        dim4 sst = {p->C * p->H * p->W, p->H * p->W, p->W, 1};
        local_addr_t at = p->K * 0x80000;
        if (p->which != 6)
            okk_gdma_32bit_cpy_S2L(at, p->input_addr, &shape, NULL, p->which == 4 ? &sst : NULL);
        okk_poll(); okk_initialize();
        okk_gdma_32bit_cpy_L2S(p->output_addr, at, &shape, p->which == 4 ? &sst : NULL, NULL);
    } else if (p->which == 7) {
        dim4 shape = {1, p->C, p->H, p->W};
        okk_gdma_32bit_cpy_S2L(0x40000, p->input_addr, &shape, NULL, NULL);
        okk_poll(); okk_initialize();
        dim4 st;
        okk_128_byte_aligned_stride_for_32bit(&st, 0, &shape);
        if (p->N == 0)
            okk_bdc_mul_C(0, 0x40000, 0.75f, &shape, NULL, NULL);
        else if (p->N == 1)
            okk_bdc_add(0, 0x40000, 0x40000, &shape, NULL, NULL, NULL);
        else if (p->N == 2)
            okk_bdc_mul_C(0, 0x40000, 0.75f, &shape, &st, &st);
        else
            okk_bdc_add(0, 0x40000, 0x40000, &shape, &st, &st, &st);
        okk_poll(); okk_initialize();
        okk_gdma_32bit_cpy_L2S(p->output_addr, 0, &shape, NULL, NULL);
    } else if (p->which == 8) {
        dim4 one = {1, 1, 1, 1};
        for (int i = 0; i < p->R; ++i) {
            if (p->K) okk_parallel_start();
            okk_bdc_add_C(0, 0, 1.0f, &one, NULL, NULL);
            if (p->K) okk_parallel_end();
        }
    } else if (p->which == 9) {
        dim4 one = {1, 1, 1, 1};
        x32 v = {.fp32 = 1.0f};
        for (int i = 0; i < p->R; ++i)
            okk_gdma_32bit_set_C_local(0, v, &one, NULL);
    } else if (p->which == 3) {
        okk_gdma_32bit_matrix_S2L(0x20000, p->input_addr, p->R, p->K, p->LCPC, p->K);
        okk_poll(); okk_initialize();
        okk_gdma_32bit_matrix_L2S(p->output_addr, 0x20000, p->R, p->K, p->LCPC, p->K);
    }
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(probe);
