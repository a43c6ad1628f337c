/* npusim probes of the C-model findings of issue 14 (docs/okk.md): which 0 conv2d with kernel_stride {0,0,0,0}
   and kernel_w 1; which 1 matmul with left_cols_per_channel > left_cols; which 2 conv2d 2IC weights at waddr;
   which 3 conv2d with an odd IC whose last pair's unused half is never written. */
#include "okk.h"
typedef struct {
    int which, IC, K, LCPC, waddr;
    unsigned long long output_addr, input_addr, weight_addr;
} __attribute__((packed)) param_t;

void probe(const void *args) {
    const param_t *p = (const param_t *)args;
    okk_initialize();
    if (p->which == 0 || p->which == 2 || p->which == 3) {
        /* conv2d 1x1: input (1, IC, 4, 8) aligned at 0x8000, output (1, 3, 4, 8) at 0 */
        dim4 ishape = {1, p->IC, 4, 8}, oshape = {1, 3, 4, 8};
        okk_gdma_32bit_cpy_S2L(0x8000, p->input_addr, &ishape, NULL, NULL);
        dim4 ist, kst, k2 = {(p->IC + 1) / 2, 3, 1, 1};
        okk_128_byte_aligned_stride_for_32bit(&ist, 0, &ishape);
        okk_compact_stride(&kst, 0, &k2);
        int ic2 = (p->IC + 1) / 2;
        if (p->which == 0) {
            dim4 wsh = {1, 3, 1, 2};                 /* one pair on each of NPUs 0..2 */
            okk_gdma_32bit_cpy_S2L(p->waddr, p->weight_addr, &wsh, NULL, NULL);
            dim4 ks = {0, 0, 0, 0};
            okk_bdc_conv2d(0, 0x8000, p->waddr, 0, &ishape, 3, 1, 1, &ist, &ks, false, false, NULL, NULL, NULL);
        } else {
            /* compact 2IC weights (ic2, 3, 1, 2); which 3: only the used halves of an odd IC written */
            dim4 wsh = {ic2, 3, 1, 2}, wst;
            okk_compact_stride(&wst, 0, &wsh);
            if (p->which == 3 && (p->IC % 2)) {
                dim4 full = {ic2 - 1, 3, 1, 2}, last = {1, 3, 1, 1}, lst = {wst.n, wst.c, wst.h, 1};
                if (ic2 > 1)
                    okk_gdma_32bit_cpy_S2L(p->waddr, p->weight_addr, &full, &wst, NULL);
                okk_gdma_32bit_cpy_S2L(p->waddr + (ic2 - 1) * wst.n * 4, p->weight_addr + (ic2 - 1) * 6 * 4,
                                       &last, &lst, &(dim4){3, 2, 2, 1});
            } else
                okk_gdma_32bit_cpy_S2L(p->waddr, p->weight_addr, &wsh, &wst, NULL);
            okk_bdc_conv2d(0, 0x8000, p->waddr, 0, &ishape, 3, 1, 1, &ist, &kst, false, false, NULL, NULL, NULL);
        }
        okk_gdma_32bit_cpy_L2S(p->output_addr, 0, &oshape, NULL, NULL);
    } else if (p->which == 1) {
        /* matmul (5 x K) @ (K x 7), left_cols_per_channel LCPC (may exceed K) */
        okk_gdma_32bit_matrix_S2L(0x8000, p->input_addr, 5, p->K, p->LCPC, p->K);
        okk_gdma_32bit_matrix_S2L(0x10000, p->weight_addr, p->K, 7, 7, 7);
        okk_bdc_matmul(0, 0x8000, 0x10000, 0, 5, p->K, 7, p->LCPC, 7, false, false);
        okk_gdma_32bit_matrix_L2S(p->output_addr, 0, 5, 7, 7, 7);
    }
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(probe);
