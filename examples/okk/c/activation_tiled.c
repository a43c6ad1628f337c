/* C twin of examples/okk/activation_tiled.py: sigmoid / tanh over a tensor larger than local memory,
   reshaped to rows of (C = 64, H = 1, W = tile_w) and split along N; the tail is one (1, 64, 1, r / 64)
   tile plus one (1, r % 64, 1, 1) tile. "simple": GDMA in, BDC, GDMA out, one after the other.
   "pingpong": two buffer sets; step i loads tile i, computes tile i-1 and stores tile i-2 inside one
   okk_parallel_start / okk_parallel_end region, so GDMA and BDC overlap. */
#include "okk.h"

typedef struct {
    unsigned long long output_addr;
    unsigned long long input_addr;
    int total;          /* elements */
    int tile_w;         /* fp32 per NPU per buffer, at most 16384 */
    int use_tanh;
} __attribute__((packed)) param_t;

typedef struct {
    unsigned long long offset;      /* elements */
    dim4 shape;
} tile_t;

/* The tile list of the Python twin; returns the count (at most max). */
static int tiles(int total, int tile_w, tile_t *out, int max) {
    int row = 64 * tile_w, n = 0;
    unsigned long long done = 0;
    for (int i = 0; i < total / row && n < max; i++, done += row)
        out[n++] = (tile_t){done, {1, 64, 1, tile_w}};
    int rest = total - (int)done;
    if (rest >= 64 && n < max) {
        out[n++] = (tile_t){done, {1, 64, 1, rest / 64}};
        done += (unsigned long long)(rest / 64) * 64;
    }
    if (total - (int)done && n < max)
        out[n++] = (tile_t){done, {1, total - (int)done, 1, 1}};
    return n;
}

static void activation(const param_t *p, local_addr_t dst, local_addr_t src, local_addr_t work, const dim4 *sh) {
    if (p->use_tanh)
        okk_bdc_tanh(dst, src, work, sh);
    else
        okk_bdc_sigmoid(dst, src, work, sh);
}

#define MAX_TILES 4096
static tile_t ts[MAX_TILES];

void activation_simple(const void *args) {
    const param_t *p = (const param_t *)args;
    const local_addr_t buf = p->tile_w * 4, x = 0, y = buf, work = 2 * buf;
    int n = tiles(p->total, p->tile_w, ts, MAX_TILES);
    OKKERNEL_ASSERT(5 * buf <= LOCAL_MEM_SIZE);
    okk_initialize();
    for (int i = 0; i < n; i++) {
        okk_gdma_32bit_cpy_S2L(x, p->input_addr + 4 * ts[i].offset, &ts[i].shape, NULL, NULL);
        activation(p, y, x, work, &ts[i].shape);
        okk_gdma_32bit_cpy_L2S(p->output_addr + 4 * ts[i].offset, y, &ts[i].shape, NULL, NULL);
    }
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(activation_simple);

void activation_pingpong(const void *args) {
    const param_t *p = (const param_t *)args;
    const local_addr_t buf = p->tile_w * 4;
    const local_addr_t x[2] = {0, buf}, y[2] = {2 * buf, 3 * buf}, work = 4 * buf;
    int n = tiles(p->total, p->tile_w, ts, MAX_TILES);
    OKKERNEL_ASSERT(5 * buf <= LOCAL_MEM_SIZE);
    okk_initialize();
    for (int i = 0; i < n + 2; i++) {
        okk_parallel_start();
        if (i < n)
            okk_gdma_32bit_cpy_S2L(x[i % 2], p->input_addr + 4 * ts[i].offset, &ts[i].shape, NULL, NULL);
        if (1 <= i && i <= n)
            activation(p, y[(i - 1) % 2], x[(i - 1) % 2], work, &ts[i - 1].shape);
        if (i >= 2)
            okk_gdma_32bit_cpy_L2S(p->output_addr + 4 * ts[i - 2].offset, y[i % 2], &ts[i - 2].shape, NULL, NULL);
        okk_parallel_end();
    }
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(activation_pingpong);
