/* npusim.okk optional native kernels: the BDC fp32 sums of products on the no-FTZ fast path.
 *
 * Only used when fastsum proved that no product and no partial sum can be subnormal and that no input
 * is a NaN: then every BDC step is one plain IEEE binary32 multiply followed by one plain add, in the
 * orders documented in bdc_conv.py, bdc_depthwise_pool.py and bdc_matmul.py (numpy is the reference;
 * tests/okk/test_native_mac.py checks the bits). Build flags keep that honest: -ffp-contract=off (no
 * fused multiply-add: products round first) and -fno-fast-math. Every NaN that can arise is the
 * hardware's default NaN, so operand order inside an addition cannot change a bit.
 *
 * Vectorisation runs across output positions only; each output's additions stay sequential.
 */
#include <stddef.h>

#ifndef TILE
#define TILE 128           /* output positions per tile: accumulators stay in L1 */
#endif
#ifndef OCB
#define OCB 16             /* output channels sharing one tap run */
#endif


/* Store tile positions [p0, p0 + pn) of ``val`` (position p = r * pitch + q) into dst (rows of ow): the
 * valid columns q < ow of each row the tile touches, as contiguous runs. */
static void store_tile(float *dst, const float *val, long p0, long pn, long pitch, long ow)
{
    for (long r = p0 / pitch; r * pitch < p0 + pn; r++) {
        long lo = r * pitch > p0 ? r * pitch : p0;
        long hi = r * pitch + ow < p0 + pn ? r * pitch + ow : p0 + pn;
        for (long p = lo; p < hi; p++)
            dst[r * ow + (p - r * pitch)] = val[p - p0];
    }
}

/* CONV_FP32 (bdc_conv.conv_sum). x: per image ``x_image`` floats of stride-phase planes of pitch ``pitch``
 * (native_mac.phases): output position p = r * pitch + q (q < pitch; columns q >= ow are computed and
 * dropped) reads x[image + off[s] + p] for item s, a unit-stride run for every stride and dilation.
 * witem (n_items, OC): the weight of item s; acc[s] = 2 * lane + s % 2, the accumulator item s adds to.
 * init[4]: the start of each accumulator (-0 for one that receives products, the additive identity;
 * +0 for one that never does, as the numpy path adds a missing one as +0).
 * out (N, OC, OH, OW) = (acc1 + acc0) + (acc3 + acc2); output channels [oc_lo, oc_hi). */
void okk_conv2ic(const float *x, long n_, long x_image, long pitch, const float *witem, long oc,
                 const long *off, const int *accs, long n_items, const float *init, float *out, long oh, long ow,
                 long oc_lo, long oc_hi)
{
    float acc[4][OCB][TILE];
    long npos = (oh - 1) * pitch + ow;
    long blocks = (oc_hi - oc_lo + OCB - 1) / OCB, step = (oc_hi - oc_lo + blocks - 1) / blocks;
    for (long n = 0; n < n_; n++)
        for (long o0 = oc_lo; o0 < oc_hi; o0 += step) {
            long ob = oc_hi - o0 < step ? oc_hi - o0 : step;
            for (long p0 = 0; p0 < npos; p0 += TILE) {
                long pn = npos - p0 < TILE ? npos - p0 : TILE;
                for (int k = 0; k < 4; k++)
                    for (long o = 0; o < ob; o++)
                        for (long p = 0; p < pn; p++)
                            acc[k][o][p] = init[k];
                for (long s = 0; s < n_items; s++) {
                    const float *xs = x + n * x_image + off[s] + p0;
                    const float *wrow = witem + s * oc + o0;
                    int k = accs[s];
                    for (long o = 0; o < ob; o++) {
                        float w = wrow[o];
                        float *a = acc[k][o];
                        for (long p = 0; p < pn; p++) {
                            float prod = xs[p] * w;
                            a[p] = a[p] + prod;
                        }
                    }
                }
                for (long o = 0; o < ob; o++) {
                    float val[TILE];
                    for (long p = 0; p < pn; p++) {
                        float l0 = acc[1][o][p] + acc[0][o][p];
                        float l1 = acc[3][o][p] + acc[2][o][p];
                        val[p] = l0 + l1;
                    }
                    store_tile(out + (n * oc + o0 + o) * oh * ow, val, p0, pn, pitch, ow);
                }
            }
        }
}

/* DEPTHWISE / avg POOLING (bdc_depthwise_pool.even_odd_taps). x: stride-phase planes as for okk_conv2ic,
 * ``x_plane`` floats per (image, channel), tap t at x_plane offset off[t]; w (C, taps).
 * acc[t % 2] over taps t in order, each from -0; out = acc0 with one tap, else (acc0 + acc1) + 0. */
void okk_even_odd_taps(const float *x, long n_, long c_, long x_plane, long pitch, const long *off, long taps,
                       const float *w, float *out, long oh, long ow)
{
    float acc[2][TILE];
    long npos = (oh - 1) * pitch + ow;
    for (long n = 0; n < n_; n++)
        for (long c = 0; c < c_; c++)
            for (long p0 = 0; p0 < npos; p0 += TILE) {
                long pn = npos - p0 < TILE ? npos - p0 : TILE;
                for (long p = 0; p < pn; p++)
                    acc[0][p] = acc[1][p] = -0.0f;
                for (long t = 0; t < taps; t++) {
                    const float *xs = x + (n * c_ + c) * x_plane + off[t] + p0;
                    float wt = w[c * taps + t];
                    float *a = acc[t & 1];
                    for (long p = 0; p < pn; p++) {
                        float prod = xs[p] * wt;
                        a[p] = a[p] + prod;
                    }
                }
                if (taps > 1)
                    for (long p = 0; p < pn; p++) {
                        float sum = acc[0][p] + acc[1][p];
                        acc[0][p] = sum + 0.0f;
                    }
                store_tile(out + (n * c_ + c) * oh * ow, acc[0], p0, pn, pitch, ow);
            }
}

/* FC_FP32 (bdc_matmul.even_odd_dot). left (M, K), right (K, N), out (M, N) = acc_even + acc_odd, each
 * accumulator from +0 over k of its parity in order; rows [m_lo, m_hi). */
void okk_even_odd_dot(const float *left, const float *right, float *out, long m_, long k_, long n_,
                      long m_lo, long m_hi)
{
    enum { MB = 4 };
    float acc[MB][2][TILE];
    (void)m_;
    for (long m0 = m_lo; m0 < m_hi; m0 += MB) {
        long mb = m_hi - m0 < MB ? m_hi - m0 : MB;
        for (long n0 = 0; n0 < n_; n0 += TILE) {
            long nn = n_ - n0 < TILE ? n_ - n0 : TILE;
            for (long r = 0; r < mb; r++)
                for (long p = 0; p < nn; p++)
                    acc[r][0][p] = acc[r][1][p] = 0.0f;
            for (long k = 0; k < k_; k++) {
                const float *rrow = right + k * n_ + n0;
                for (long r = 0; r < mb; r++) {
                    float l = left[(m0 + r) * k_ + k];
                    float *a = acc[r][k & 1];
                    for (long p = 0; p < nn; p++) {
                        float prod = l * rrow[p];
                        a[p] = a[p] + prod;
                    }
                }
            }
            for (long r = 0; r < mb; r++) {
                float *dst = out + (m0 + r) * n_ + n0;
                for (long p = 0; p < nn; p++)
                    dst[p] = acc[r][0][p] + acc[r][1][p];
            }
        }
    }
}

/* min |x| over nonzero x (+inf when none) and whether any x is a NaN, in one pass (fastsum's proof).
 * Sixteen running minima, so the loop vectorises without fast-math. */
float okk_min_abs_nonzero(const float *x, long n, int *has_nan)
{
    float m[16];
    int nan[16];
    for (int l = 0; l < 16; l++) {
        m[l] = __builtin_inff();
        nan[l] = 0;
    }
    long i = 0;
    for (; i + 16 <= n; i += 16)
        for (int l = 0; l < 16; l++) {
            float a = __builtin_fabsf(x[i + l]);
            float b = a == 0.0f ? __builtin_inff() : a;
            nan[l] |= a != a;
            m[l] = b < m[l] ? b : m[l];
        }
    for (int l = 0; i + l < n; l++) {
        float a = __builtin_fabsf(x[i + l]);
        float b = a == 0.0f ? __builtin_inff() : a;
        nan[l] |= a != a;
        m[l] = b < m[l] ? b : m[l];
    }
    float r = m[0];
    int any = nan[0];
    for (int l = 1; l < 16; l++) {
        r = m[l] < r ? m[l] : r;
        any |= nan[l];
    }
    *has_nan = any;
    return r;
}
