/* C twin of examples/okk/softmax.py: softmax over C of an (N, C, H, W) fp32 tensor.
   C goes on the local N axis, positions on channels (compact strides, one strided GDMA per tile);
   max and sum are halving trees, x - max and the final multiply broadcast with an N stride of 0.
   Run: npusim okk run examples/okk/c/softmax.c --entry softmax ... (see docs/okk.md). */
#include "okk.h"

typedef struct {
    int N, C, H, W;
    unsigned long long output_addr;
    unsigned long long input_addr;
} __attribute__((packed)) param_t;

#define BUF 0x1F000
#define X 0x0
#define Y BUF
#define Z (2 * BUF)
#define WORK (3 * BUF)
#define M (4 * BUF)

typedef void (*binary_fn)(local_addr_t, local_addr_t, local_addr_t, const dim4 *, const dim4 *,
                          const dim4 *, const dim4 *);

static void max_rows(local_addr_t buf, int count, int P, const dim4 *st) {
    int rows = (P + 63) / 64;
    while (count > 1) {
        int h = count / 2;
        okk_bdc_max(buf, buf, buf + (count - h) * rows * 4, &(dim4){h, P, 1, 1}, st, st, st);
        count -= h;
    }
}

static void add_rows(local_addr_t buf, int count, int P, const dim4 *st) {
    int rows = (P + 63) / 64;
    while (count > 1) {
        int h = count / 2;
        okk_bdc_add(buf, buf, buf + (count - h) * rows * 4, &(dim4){h, P, 1, 1}, st, st, st);
        count -= h;
    }
}

static void softmax_tile(system_addr_t dst, system_addr_t src, int C, int P, const dim4 *src_stride) {
    int rows = (P + 63) / 64;
    dim4 st = {rows, 1, 1, 1};
    dim4 one = {1, P, 1, 1};
    dim4 bcast = {0, 1, 1, 1};
    dim4 sh = {C, P, 1, 1};
    okk_gdma_32bit_cpy_S2L(X, src, &sh, &st, src_stride);
    okk_bdc_32bit_cpy(Y, X, &sh, &st, &st);
    max_rows(Y, C, P, &st);
    okk_bdc_32bit_cpy(M, Y, &one, &st, &st);
    okk_bdc_sub(Y, X, M, &sh, &st, &st, &bcast);
    dim4 flat = {1, P < 64 ? P : 64, 1, C * rows};         /* the same bytes, aligned layout */
    okk_bdc_exp(Z, Y, WORK, &flat);
    okk_bdc_32bit_cpy(Y, Z, &sh, &st, &st);
    add_rows(Y, C, P, &st);
    okk_bdc_reciprocal(M, Y, &one, &st, &st);
    okk_bdc_mul(Y, Z, M, &sh, &st, &st, &bcast);
    okk_gdma_32bit_cpy_L2S(dst, Y, &sh, src_stride, &st);
}

/* Position tiles: multiples of 64 (every NPU row full), at most 4032 and what fits a buffer. */
static int next_tile(int p, int total, int C) {
    int per = (BUF / 4) / C;
    int cap = 64 * (per > 1 ? per : 1);
    int rest = total - p;
    if (cap > 4032)
        cap = 4032;
    if (rest < 64)
        return rest < cap ? rest : cap;
    rest -= rest % 64;
    return rest < cap ? rest : cap;
}

void softmax(const void *args) {
    const param_t *p = (const param_t *)args;
    int hw = p->H * p->W;
    okk_initialize();
    if (hw == 1) {               /* positions are the batch: element (c, b) at b*C + c */
        for (int p0 = 0; p0 < p->N;) {
            int P = next_tile(p0, p->N, p->C);
            softmax_tile(p->output_addr + 4ULL * p0 * p->C, p->input_addr + 4ULL * p0 * p->C, p->C, P,
                         &(dim4){1, p->C, 1, 1});
            p0 += P;
        }
    } else {                     /* per batch item, positions are h*w: element (c, q) at c*HW + q */
        for (int b = 0; b < p->N; b++)
            for (int p0 = 0; p0 < hw;) {
                int P = next_tile(p0, hw, p->C);
                unsigned long long off = 4ULL * ((unsigned long long)b * p->C * hw + p0);
                softmax_tile(p->output_addr + off, p->input_addr + off, p->C, P, &(dim4){hw, 1, 1, 1});
                p0 += P;
            }
    }
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(softmax);
