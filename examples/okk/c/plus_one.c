/* C twin of examples/okk/plus_one.py, the programming guide's four kernels written npusim's way:
   plus_one_1 whole tensor; plus_one_2 ping-pong over N (load i, compute i-1, store i-2 in one parallel
   region); plus_one_3 the same with as many N per tile as fit a 128 KiB buffer; plus_one_4 reshaped to
   (N, 64, 1, 32) rows, the tail run again on what is left (recursion). */
#include "okk.h"

typedef struct {
    int N, C, H, W;
    unsigned long long output_addr;
    unsigned long long input_addr;
} __attribute__((packed)) param_t;

void plus_one_1(const void *args) {
    const param_t *p = (const param_t *)args;
    dim4 shape = {p->N, p->C, p->H, p->W};
    okk_initialize();
    okk_gdma_32bit_cpy_S2L(0, p->input_addr, &shape, NULL, NULL);
    okk_bdc_add_C(0x40000, 0, 1.0f, &shape, NULL, NULL);
    okk_gdma_32bit_cpy_L2S(p->output_addr, 0x40000, &shape, NULL, NULL);
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(plus_one_1);

static void pingpong(system_addr_t dst, system_addr_t src, dim4 shape, int tile_n) {
    const unsigned long long per_n = 4ULL * shape.c * shape.h * shape.w;
    const local_addr_t in[2] = {0x0, 0x20000}, out[2] = {0x40000, 0x60000};
    const int tiles = (shape.n + tile_n - 1) / tile_n;
    for (int i = 0; i < tiles + 2; i++) {
        okk_parallel_start();
        if (i < tiles) {
            int n0 = i * tile_n, nn = shape.n - n0 < tile_n ? shape.n - n0 : tile_n;
            okk_gdma_32bit_cpy_S2L(in[i % 2], src + n0 * per_n, &(dim4){nn, shape.c, shape.h, shape.w}, NULL, NULL);
        }
        if (1 <= i && i <= tiles) {
            int n0 = (i - 1) * tile_n, nn = shape.n - n0 < tile_n ? shape.n - n0 : tile_n;
            okk_bdc_add_C(out[(i - 1) % 2], in[(i - 1) % 2], 1.0f, &(dim4){nn, shape.c, shape.h, shape.w}, NULL, NULL);
        }
        if (i >= 2) {
            int n0 = (i - 2) * tile_n, nn = shape.n - n0 < tile_n ? shape.n - n0 : tile_n;
            okk_gdma_32bit_cpy_L2S(dst + n0 * per_n, out[i % 2], &(dim4){nn, shape.c, shape.h, shape.w}, NULL, NULL);
        }
        okk_parallel_end();
    }
}

void plus_one_2(const void *args) {
    const param_t *p = (const param_t *)args;
    okk_initialize();
    pingpong(p->output_addr, p->input_addr, (dim4){p->N, p->C, p->H, p->W}, 1);
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(plus_one_2);

void plus_one_3(const void *args) {
    const param_t *p = (const param_t *)args;
    dim4 one = {1, p->C, p->H, p->W}, st;
    okk_initialize();
    okk_128_byte_aligned_stride_for_32bit(&st, 0, &one);
    int tile_n = 0x20000 / (st.n * 4);
    pingpong(p->output_addr, p->input_addr, (dim4){p->N, p->C, p->H, p->W}, tile_n > 1 ? tile_n : 1);
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(plus_one_3);

static void plus_one_4_body(system_addr_t dst, system_addr_t src, long long count) {
    const long long row = 64 * 32;
    long long n = count / row;
    if (n)
        pingpong(dst, src, (dim4){(int)n, 64, 1, 32}, 0x20000 / (32 * 4));
    long long rest = count - n * row;
    if (rest) {
        int c = rest < 64 ? (int)rest : 64;
        int w = (int)(rest / c);
        unsigned long long done = (unsigned long long)(n * row);
        dim4 sh = {1, c, 1, w};
        okk_gdma_32bit_cpy_S2L(0, src + 4 * done, &sh, NULL, NULL);
        okk_bdc_add_C(0x40000, 0, 1.0f, &sh, NULL, NULL);
        okk_gdma_32bit_cpy_L2S(dst + 4 * done, 0x40000, &sh, NULL, NULL);
        long long tail = rest - (long long)c * w;
        if (tail)
            plus_one_4_body(dst + 4 * (done + c * w), src + 4 * (done + c * w), tail);
    }
}

void plus_one_4(const void *args) {
    const param_t *p = (const param_t *)args;
    okk_initialize();
    plus_one_4_body(p->output_addr, p->input_addr, (long long)p->N * p->C * p->H * p->W);
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(plus_one_4);
