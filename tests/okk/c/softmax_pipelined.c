/* npusim test kernel: softmax over C of an (N, C, H, W) fp32 tensor (the layout of
   examples/okk/c/softmax.c: C on the local N axis, positions on channels, compact strides), pipelined:
   in step i, inside one okk_parallel_start/okk_parallel_end region, GDMA loads tile i, BDC computes tile
   i-1 and GDMA stores tile i-2, with two input and two output buffers. */
#include "okk.h"

typedef struct {
    int N, C, H, W;
    unsigned long long output_addr;
    unsigned long long input_addr;
} __attribute__((packed)) param_t;

#define BUF 0xC000
static const local_addr_t X[2] = {0, BUF}, Y[2] = {2 * BUF, 3 * BUF};
#define Z (4 * BUF)
#define WORK (5 * BUF)
#define M (6 * BUF)

typedef struct {
    unsigned long long offset;    /* bytes from the tensor start */
    int P;                        /* positions in the tile */
    dim4 sys_stride;
} tile_t;

#define MAX_TILES 8192
static tile_t tiles[MAX_TILES];

static int make_tiles(const param_t *p) {
    int hw = p->H * p->W, n = 0;
    int per = (BUF / 4) / p->C;
    int cap = 64 * (per > 1 ? per : 1);
    if (cap > 4032)
        cap = 4032;
    OKKERNEL_ASSERT(per >= 1);
    int batches = hw == 1 ? 1 : p->N, total = hw == 1 ? p->N : hw;
    for (int b = 0; b < batches; b++)
        for (int p0 = 0; p0 < total && n < MAX_TILES;) {
            int rest = total - p0;
            int P = rest < 64 ? (rest < cap ? rest : cap) : ((rest - rest % 64) < cap ? rest - rest % 64 : cap);
            tiles[n].offset = hw == 1 ? 4ULL * p0 * p->C : 4ULL * ((unsigned long long)b * p->C * hw + p0);
            tiles[n].P = P;
            tiles[n].sys_stride = hw == 1 ? (dim4){1, p->C, 1, 1} : (dim4){hw, 1, 1, 1};
            n++;
            p0 += P;
        }
    return n;
}

static void compute(local_addr_t y, local_addr_t x, int C, int P) {
    int rows = (P + 63) / 64;
    dim4 st = {rows, 1, 1, 1}, one = {1, P, 1, 1}, bcast = {0, 1, 1, 1}, sh = {C, P, 1, 1};
    okk_bdc_32bit_cpy(y, x, &sh, &st, &st);
    for (int count = C; count > 1;) {
        int h = count / 2;
        okk_bdc_max(y, y, y + (count - h) * rows * 4, &(dim4){h, P, 1, 1}, &st, &st, &st);
        count -= h;
    }
    okk_bdc_32bit_cpy(M, y, &one, &st, &st);
    okk_bdc_sub(y, x, M, &sh, &st, &st, &bcast);
    okk_bdc_exp(Z, y, WORK, &(dim4){1, P < 64 ? P : 64, 1, C * rows});
    okk_bdc_32bit_cpy(y, Z, &sh, &st, &st);
    for (int count = C; count > 1;) {
        int h = count / 2;
        okk_bdc_add(y, y, y + (count - h) * rows * 4, &(dim4){h, P, 1, 1}, &st, &st, &st);
        count -= h;
    }
    okk_bdc_reciprocal(M, y, &one, &st, &st);
    okk_bdc_mul(y, Z, M, &sh, &st, &st, &bcast);
}

void softmax_pipelined(const void *args) {
    const param_t *p = (const param_t *)args;
    int n = make_tiles(p);
    okk_initialize();
    for (int i = 0; i < n + 2; i++) {
        okk_parallel_start();
        if (i < n) {
            int rows = (tiles[i].P + 63) / 64;
            okk_gdma_32bit_cpy_S2L(X[i % 2], p->input_addr + tiles[i].offset, &(dim4){p->C, tiles[i].P, 1, 1},
                                   &(dim4){rows, 1, 1, 1}, &tiles[i].sys_stride);
        }
        if (1 <= i && i <= n)
            compute(Y[(i - 1) % 2], X[(i - 1) % 2], p->C, tiles[i - 1].P);
        if (i >= 2) {
            int rows = (tiles[i - 2].P + 63) / 64;
            okk_gdma_32bit_cpy_L2S(p->output_addr + tiles[i - 2].offset, Y[i % 2],
                                   &(dim4){p->C, tiles[i - 2].P, 1, 1}, &tiles[i - 2].sys_stride,
                                   &(dim4){rows, 1, 1, 1});
        }
        okk_parallel_end();
    }
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(softmax_pipelined);
