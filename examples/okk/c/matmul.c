/* C twin of examples/okk/matmul.py: (M x K) @ (K x N) tiled over local memory. Right tiles (k_t x n_t)
   with right_cols_per_channel = ceil(n_t / 64), left tiles (m_t x k_t) likewise; partial products over K
   accumulate with result_add; matrices move with matrix_S2L / matrix_L2S and a row stride. */
#include "okk.h"

typedef struct {
    int left_rows, left_cols, right_cols;
    unsigned long long output_addr;
    unsigned long long left_addr;
    unsigned long long right_addr;
} __attribute__((packed)) param_t;

#define RIGHT 0x0
#define LEFT 0x40000
#define OUT 0x58000
#define DIV_UP(a, b) (((a) + (b) - 1) / (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static int row_bytes(int cpc) { return DIV_UP(cpc, 32) * 128; }

void matmul(const void *args) {
    const param_t *p = (const param_t *)args;
    const int M_ = p->left_rows, K = p->left_cols, N = p->right_cols;
    int n_t = MIN(N, 64 * 128);
    int rcpc0 = MIN(128, DIV_UP(n_t, 64));
    int k_t = MIN(MIN(K, (LEFT - RIGHT) / row_bytes(rcpc0)), 65535);
    int lcpc0 = MIN(128, DIV_UP(k_t, 64));
    int m_t = MIN(MIN(M_, (OUT - LEFT) / row_bytes(lcpc0)), MIN((0x80000 - OUT) / row_bytes(rcpc0), 65535));
    okk_initialize();
    for (int n0 = 0; n0 < N; n0 += n_t) {
        int nn = MIN(n_t, N - n0);
        int rcpc = MIN(128, DIV_UP(nn, 64));
        for (int m0 = 0; m0 < M_; m0 += m_t) {
            int mm = MIN(m_t, M_ - m0);
            for (int k0 = 0; k0 < K; k0 += k_t) {
                int kk = MIN(k_t, K - k0);
                int lcpc = MIN(128, DIV_UP(kk, 64));
                if (K > k_t || m0 == 0)
                    okk_gdma_32bit_matrix_S2L(RIGHT, p->right_addr + 4ULL * ((unsigned long long)k0 * N + n0),
                                              kk, nn, rcpc, N);
                okk_gdma_32bit_matrix_S2L(LEFT, p->left_addr + 4ULL * ((unsigned long long)m0 * K + k0),
                                          mm, kk, lcpc, K);
                okk_bdc_matmul(OUT, LEFT, RIGHT, 0, mm, kk, nn, lcpc, rcpc, false, k0 > 0);
            }
            okk_gdma_32bit_matrix_L2S(p->output_addr + 4ULL * ((unsigned long long)m0 * N + n0), OUT, mm, nn,
                                      rcpc, N);
        }
    }
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(matmul);
