/* C twin of examples/okk/spatial.py's run_window, the tiling behind examples/okk/conv2d.py, depthwise.py
   and pooling.py: per channel group (conv2d: per output-channel group) and batch item, output-row tiles
   whose input rows (the halo) fit local memory; top/bottom padding only where a tile meets the tensor's
   edge; GDMA in, one BDC instruction, GDMA out. Entries: conv2d (2IC weights in system memory),
   depthwise2d, avg_pool2d, max_pool2d.
   Local memory per NPU: input [0, 0x30000), output [0x30000, 0x58000), weights [0x58000, 0x7C000),
   bias [0x7C000, 0x80000). */
#include "okk.h"

typedef struct {
    int N, C, H, W, OC;
    int kernel_h, kernel_w;
    int pad_top, pad_bottom, pad_left, pad_right;
    int stride_h, stride_w, dilation_h, dilation_w;
    int c_tile, oc_tile;
    unsigned long long output_addr, input_addr, weight_addr;
} __attribute__((packed)) param_t;

enum { CONV2D, DEPTHWISE2D, AVG_POOL2D, MAX_POOL2D };
#define IN 0x0
#define OUT 0x30000
#define WEIGHT 0x58000
#define BIAS 0x7C000
#define IN_BYTES (OUT - IN)
#define OUT_BYTES (WEIGHT - OUT)

static int per_npu(int channels, int hw) { return (channels + 63) / 64 * ((hw + 31) / 32 * 128); }

typedef struct {
    int o0, on, i0, in, pad_top, pad_bottom;
} rows_t;

/* Output-row tiles covering oh rows within the budgets (spatial.row_tiles). */
static int row_tiles(const param_t *p, int oh, int ow, int cin, int cout, rows_t *out, int max) {
    int span = (p->kernel_h - 1) * p->dilation_h + 1, n_t = oh, n = 0;
    while (n_t > 1) {
        int rows = (n_t - 1) * p->stride_h + span;
        if (per_npu(cin, (rows < p->H ? rows : p->H) * p->W) <= IN_BYTES && per_npu(cout, n_t * ow) <= OUT_BYTES)
            break;
        n_t = n_t > 8 ? n_t / 2 : n_t - 1;
        if (n_t < 1)
            n_t = 1;
    }
    for (int o0 = 0; o0 < oh && n < max; o0 += n_t) {
        int on = oh - o0 < n_t ? oh - o0 : n_t;
        int lo = o0 * p->stride_h - p->pad_top, hi = (o0 + on - 1) * p->stride_h - p->pad_top + span;
        int i0 = lo > 0 ? lo : 0, i1 = hi < p->H ? hi : p->H;
        out[n++] = (rows_t){o0, on, i0, i1 - i0, i0 - lo, hi - i1};
    }
    return n;
}

static rows_t tiles[4096];

static void run_window(const param_t *p, int kind) {
    const int n = p->N, c = p->C, h = p->H, w = p->W;
    const int oc = kind == CONV2D ? p->OC : c;
    const int kh = p->kernel_h, kw = p->kernel_w;
    const int oh = (h + p->pad_top + p->pad_bottom - ((kh - 1) * p->dilation_h + 1)) / p->stride_h + 1;
    const int ow = (w + p->pad_left + p->pad_right - ((kw - 1) * p->dilation_w + 1)) / p->stride_w + 1;
    dim2 st = {p->stride_h, p->stride_w}, dil = {p->dilation_h, p->dilation_w};
    dim4 src_st = {c * h * w, h * w, w, 1}, dst_st = {oc * oh * ow, oh * ow, ow, 1};
    const int tile = kind == CONV2D ? p->oc_tile : p->c_tile;
    okk_initialize();
    for (int g0 = 0; g0 < oc; g0 += tile) {
        /* conv2d: all input channels, output channels [g0, g0 + on); else channels [g0, g0 + cn) */
        int on = oc - g0 < tile ? oc - g0 : tile;
        int ci = kind == CONV2D ? 0 : g0, cn = kind == CONV2D ? c : on;
        dim4 kst;
        if (kind == CONV2D) {
            int ic2 = (c + 1) / 2;
            okk_compact_stride(&kst, 0, &(dim4){ic2, on, kh, kw});
            okk_gdma_32bit_cpy_S2L(WEIGHT, p->weight_addr + 4ULL * g0 * kh * kw * 2, &(dim4){ic2, on, kh, 2 * kw},
                                   &(dim4){2 * kst.n, 2 * kst.c, 2 * kst.h, 1},
                                   &(dim4){oc * kh * kw * 2, kh * kw * 2, kw * 2, 1});
        } else if (kind == DEPTHWISE2D) {
            dim4 wsh = {1, cn, kh, kw}, wst;
            okk_compact_stride(&wst, 0, &wsh);
            okk_gdma_32bit_cpy_S2L(WEIGHT, p->weight_addr + 4ULL * ci * kh * kw, &wsh, &wst, NULL);
        }
        int nt = row_tiles(p, oh, ow, cn, on, tiles, 4096);
        for (int b = 0; b < n; b++)
            for (int t = 0; t < nt; t++) {
                const rows_t *r = &tiles[t];
                dim4 ish = {1, cn, r->in, w};
                okk_gdma_32bit_cpy_S2L(IN, p->input_addr + 4ULL * ((unsigned long long)b * c * h * w + ci * h * w + r->i0 * w),
                                       &ish, NULL, &src_st);
                Padding pad = {r->pad_top, r->pad_bottom, p->pad_left, p->pad_right};
                if (kind == CONV2D)
                    okk_bdc_conv2d(OUT, IN, WEIGHT, BIAS, &ish, on, kh, kw, NULL, &kst, false, false, &pad, &st, &dil);
                else if (kind == DEPTHWISE2D)
                    okk_bdc_depthwise2d(OUT, IN, WEIGHT, BIAS, &ish, kh, kw, false, &pad, &st, &dil);
                else if (kind == AVG_POOL2D)
                    okk_bdc_avg_pool2d(OUT, IN, &ish, kh, kw, &pad, &st);
                else
                    okk_bdc_max_pool2d(OUT, IN, &ish, kh, kw, &pad, &st);
                okk_gdma_32bit_cpy_L2S(p->output_addr + 4ULL * ((unsigned long long)b * oc * oh * ow + (unsigned long long)g0 * oh * ow + r->o0 * ow),
                                       OUT, &(dim4){1, on, r->on, ow}, &dst_st, NULL);
            }
    }
    okk_poll();
}

void conv2d(const void *args) { run_window((const param_t *)args, CONV2D); }
void depthwise2d(const void *args) { run_window((const param_t *)args, DEPTHWISE2D); }
void avg_pool2d(const void *args) { run_window((const param_t *)args, AVG_POOL2D); }
void max_pool2d(const void *args) { run_window((const param_t *)args, MAX_POOL2D); }
OKKERNEL_FUNC_REGISTER(conv2d);
OKKERNEL_FUNC_REGISTER(depthwise2d);
OKKERNEL_FUNC_REGISTER(avg_pool2d);
OKKERNEL_FUNC_REGISTER(max_pool2d);
