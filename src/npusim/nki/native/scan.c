/* tensor_tensor_scan's recurrence in C (npusim.nki.native_scan; numpy in isa_vector.py is the reference).

   out[p][i] = op1(op0(x0[p][i], prev), x1[p][i]), prev = out[p][i - 1] (init[p] for i = 0); reverse0 /
   reverse1 swap an op's operands. Ops: 0 add, 1 subtract, 2 multiply, each one IEEE float32 operation
   rounded to nearest as numpy's float32 ufuncs do: built with -ffp-contract=off (no fused multiply-add)
   and refused where float expressions evaluate in a wider type. Subnormals, infinities and signed zeros
   follow IEEE 754 like numpy's loops (both run under the same MXCSR). NaN payloads are where C and
   numpy could differ (which operand's NaN an x86 instruction keeps depends on operand order), so the
   kernel reports a NaN in any result and the caller recomputes that scan with numpy.

   Rows are independent chains of dependent operations, each row a short run of floats far from the
   next (SBUF partitions are 208 KiB apart, so rows alias in the L1 cache). The kernel takes the rows
   BLOCK at a time: it copies the block's rows of both inputs to column-major scratch (each row read
   once, in order; a column of the block is one cache line), runs the recurrence one column at a time
   over the block's rows (contiguous lanes: the compiler vectorises it with the same IEEE operations,
   lane by lane), and copies the results to the output rows. */
#include <float.h>
#include <stdlib.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "float arithmetic must evaluate in float (FLT_EVAL_METHOD 0) to match numpy's float32 ufuncs"
#endif

#define BLOCK 16

#define OP_0(a, b) ((a) + (b))
#define OP_1(a, b) ((a) - (b))
#define OP_2(a, b) ((a) * (b))

/* Column i of the recurrence over the block's rows: cur[b] = op1(op0(cur[b], prev[b]), d[b]) (operands
   swapped by R0 / R1). cur holds data0's column on entry and the result on exit. */
#define COLUMN(O0, O1, R0, R1)                                                                          \
    for (long b = 0; b < nb; b++) {                                                                     \
        float t = R0 ? OP_##O0(prev[b], cur[b]) : OP_##O0(cur[b], prev[b]);                             \
        cur[b] = R1 ? OP_##O1(d[b], t) : OP_##O1(t, d[b]);                                              \
    }

/* a, dcols: N columns of BLOCK floats (nb of them used); init: nb floats. */
#define SCAN_KERNEL(O0, O1)                                                                              \
static void scan_##O0##_##O1(float *a, const float *dcols, const float *init, long nb, long N, int rev0, \
                             int rev1)                                                                  \
{                                                                                                       \
    for (long i = 0; i < N; i++) {                                                                      \
        float *restrict cur = a + i * BLOCK;                                                            \
        const float *restrict prev = i ? a + (i - 1) * BLOCK : init;                                    \
        const float *restrict d = dcols + i * BLOCK;                                                    \
        if (!rev0 && !rev1) { COLUMN(O0, O1, 0, 0) }                                                    \
        else if (rev0 && !rev1) { COLUMN(O0, O1, 1, 0) }                                                \
        else if (!rev0) { COLUMN(O0, O1, 0, 1) }                                                        \
        else { COLUMN(O0, O1, 1, 1) }                                                                   \
    }                                                                                                   \
}

SCAN_KERNEL(0, 0) SCAN_KERNEL(0, 1) SCAN_KERNEL(0, 2)
SCAN_KERNEL(1, 0) SCAN_KERNEL(1, 1) SCAN_KERNEL(1, 2)
SCAN_KERNEL(2, 0) SCAN_KERNEL(2, 1) SCAN_KERNEL(2, 2)

typedef void (*scan_fn)(float *, const float *, const float *, long, long, int, int);

static const scan_fn KERNELS[3][3] = {
    {scan_0_0, scan_0_1, scan_0_2},
    {scan_1_0, scan_1_1, scan_1_2},
    {scan_2_0, scan_2_1, scan_2_2},
};

/* x0, x1: P rows of N floats, row strides s0, s1 (in floats, unit column stride); init: P floats; out:
   P x N contiguous. Returns 1 when some result is a NaN (its payload may not be numpy's: recompute with
   numpy), -1 for an op code outside 0..2 or no memory for the scratch, else 0. */
int nki_tensor_tensor_scan(const float *x0, long s0, const float *x1, long s1, const float *init, float *out,
                           long P, long N, int op0, int op1, int rev0, int rev1)
{
    if (op0 < 0 || op0 > 2 || op1 < 0 || op1 > 2)
        return -1;
    float *a = malloc(2 * (size_t)BLOCK * (size_t)N * sizeof(float));
    if (!a)
        return -1;
    float *d = a + BLOCK * N;
    int nan = 0;
    for (long p0 = 0; p0 < P; p0 += BLOCK) {
        long nb = P - p0 < BLOCK ? P - p0 : BLOCK;
        for (long b = 0; b < nb; b++) {
            const float *r0 = x0 + (p0 + b) * s0, *r1 = x1 + (p0 + b) * s1;
            for (long i = 0; i < N; i++) {
                a[i * BLOCK + b] = r0[i];
                d[i * BLOCK + b] = r1[i];
            }
        }
        KERNELS[op0][op1](a, d, init + p0, nb, N, rev0, rev1);
        for (long b = 0; b < nb; b++) {
            float *o = out + (p0 + b) * N;
            for (long i = 0; i < N; i++) {
                float r = a[i * BLOCK + b];
                o[i] = r;
                nan |= r != r;
            }
        }
    }
    free(a);
    return nan;
}
