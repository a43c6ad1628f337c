/* npusim test kernels: conv2d (2IC weights, bias), depthwise (bias), avg + max pooling in two sections,
   and a union / select kernel. One tile each: the input fits local memory. */
#include "okk.h"

typedef struct {
    int N, IC, OC, H, W;
    int kh, kw;
    int pad_top, pad_bottom, pad_left, pad_right;
    int stride_h, stride_w, dilation_h, dilation_w;
    unsigned long long output_addr, input_addr, weight_addr, bias_addr;
    unsigned long long output2_addr;
} __attribute__((packed)) param_t;

static int out_size(int in, int pad0, int pad1, int k, int dilation, int stride) {
    return (in + pad0 + pad1 - ((k - 1) * dilation + 1)) / stride + 1;
}

/* Output at 0, input after it, weights and bias after that, every block 128-byte aligned. */
void conv2d_bias(const void *args) {
    const param_t *p = (const param_t *)args;
    const int oh = out_size(p->H, p->pad_top, p->pad_bottom, p->kh, p->dilation_h, p->stride_h);
    const int ow = out_size(p->W, p->pad_left, p->pad_right, p->kw, p->dilation_w, p->stride_w);
    dim4 oshape = {p->N, p->OC, oh, ow}, ishape = {p->N, p->IC, p->H, p->W};
    dim4 wshape = {(p->IC + 1) / 2, p->OC, p->kh, p->kw * 2}, wshape_2ic = {(p->IC + 1) / 2, p->OC, p->kh, p->kw};
    dim4 bshape = {1, p->OC, 1, 1};
    dim4 ostride, istride, wstride, wstride_2ic, bstride;
    okk_128_byte_aligned_stride_for_32bit(&ostride, 0, &oshape);
    okk_128_byte_aligned_stride_for_32bit(&istride, 0, &ishape);
    okk_compact_stride(&wstride, 0, &wshape);
    okk_compact_stride(&wstride_2ic, 0, &wshape_2ic);
    okk_compact_stride(&bstride, 0, &bshape);
    local_addr_t out = 0;
    local_addr_t in = out + oshape.n * ostride.n * 4;
    local_addr_t w = in + ishape.n * istride.n * 4;
    local_addr_t b = w + ((wshape.n * wstride.n * 4 + 127) / 128) * 128;
    OKKERNEL_ASSERT(b + 128 <= LOCAL_MEM_SIZE);
    okk_initialize();
    okk_gdma_32bit_cpy_S2L(in, p->input_addr, &ishape, NULL, NULL);
    okk_gdma_32bit_cpy_S2L(w, p->weight_addr, &wshape, &wstride, NULL);
    okk_gdma_32bit_cpy_S2L(b, p->bias_addr, &bshape, &bstride, NULL);
    Padding pad = {p->pad_top, p->pad_bottom, p->pad_left, p->pad_right};
    dim2 stride = {p->stride_h, p->stride_w}, dilation = {p->dilation_h, p->dilation_w};
    okk_bdc_conv2d(out, in, w, b, &ishape, p->OC, p->kh, p->kw, &istride, &wstride_2ic, true, false, &pad, &stride,
                   &dilation);
    okk_gdma_32bit_cpy_L2S(p->output_addr, out, &oshape, NULL, NULL);
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(conv2d_bias);

/* Depthwise with bias: weight (1, C, kh, kw) and bias (1, C, 1, 1), compact. IC is C. */
void depthwise_bias(const void *args) {
    const param_t *p = (const param_t *)args;
    const int oh = out_size(p->H, p->pad_top, p->pad_bottom, p->kh, p->dilation_h, p->stride_h);
    const int ow = out_size(p->W, p->pad_left, p->pad_right, p->kw, p->dilation_w, p->stride_w);
    dim4 oshape = {p->N, p->IC, oh, ow}, ishape = {p->N, p->IC, p->H, p->W};
    dim4 wshape = {1, p->IC, p->kh, p->kw}, bshape = {1, p->IC, 1, 1};
    dim4 ostride, istride, wstride, bstride;
    okk_128_byte_aligned_stride_for_32bit(&ostride, 0, &oshape);
    okk_128_byte_aligned_stride_for_32bit(&istride, 0, &ishape);
    okk_compact_stride(&wstride, 0, &wshape);
    okk_compact_stride(&bstride, 0, &bshape);
    local_addr_t out = 0, in = oshape.n * ostride.n * 4;
    local_addr_t w = in + ishape.n * istride.n * 4;
    local_addr_t b = w + ((wstride.n * 4 + 127) / 128) * 128;
    okk_initialize();
    okk_gdma_32bit_cpy_S2L(in, p->input_addr, &ishape, NULL, NULL);
    okk_gdma_32bit_cpy_S2L(w, p->weight_addr, &wshape, &wstride, NULL);
    okk_gdma_32bit_cpy_S2L(b, p->bias_addr, &bshape, &bstride, NULL);
    okk_bdc_depthwise2d(out, in, w, b, &ishape, p->kh, p->kw, true,
                        &(Padding){p->pad_top, p->pad_bottom, p->pad_left, p->pad_right},
                        &(dim2){p->stride_h, p->stride_w}, &(dim2){p->dilation_h, p->dilation_w});
    okk_gdma_32bit_cpy_L2S(p->output_addr, out, &oshape, NULL, NULL);
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(depthwise_bias);

/* Two sections: avg pool into output_addr, then max pool into output2_addr (C is IC). */
void pools(const void *args) {
    const param_t *p = (const param_t *)args;
    const int oh = out_size(p->H, p->pad_top, p->pad_bottom, p->kh, 1, p->stride_h);
    const int ow = out_size(p->W, p->pad_left, p->pad_right, p->kw, 1, p->stride_w);
    dim4 oshape = {p->N, p->IC, oh, ow}, ishape = {p->N, p->IC, p->H, p->W};
    dim4 ostride;
    okk_128_byte_aligned_stride_for_32bit(&ostride, 0, &oshape);
    local_addr_t out = 0, in = oshape.n * ostride.n * 4;
    Padding pad = {p->pad_top, p->pad_bottom, p->pad_left, p->pad_right};
    dim2 stride = {p->stride_h, p->stride_w};
    for (int section = 0; section < 2; section++) {
        okk_initialize();
        okk_gdma_32bit_cpy_S2L(in, p->input_addr, &ishape, NULL, NULL);
        if (section == 0)
            okk_bdc_avg_pool2d(out, in, &ishape, p->kh, p->kw, &pad, &stride);
        else
            okk_bdc_max_pool2d(out, in, &ishape, p->kh, p->kw, &pad, &stride);
        okk_gdma_32bit_cpy_L2S(section == 0 ? p->output_addr : p->output2_addr, out, &oshape, NULL, NULL);
        okk_poll();
    }
}
OKKERNEL_FUNC_REGISTER(pools);

/* Unions and selects on an (N, IC, H, W) input: output = x > 0.5 ? x : -1 (greater_select with a tensor and
   two fp32_or_addr_t constants); output2 = x > 0 ? bits 0x3f800000 : 0 (greater_C_select_value with an
   x32 built from its _4N_u8 member), then + 0x00000001 through the x32 .s32 member (32-bit add_C on the
   bits by okk_bdc_32bit_or_C). */
void unions(const void *args) {
    const param_t *p = (const param_t *)args;
    dim4 shape = {p->N, p->IC, p->H, p->W}, stride;
    okk_128_byte_aligned_stride_for_32bit(&stride, 0, &shape);
    const local_addr_t size = shape.n * stride.n * 4;
    const local_addr_t x = 0, y = size, z = 2 * size, minus_one = 3 * size;
    okk_initialize();
    okk_gdma_32bit_cpy_S2L(x, p->input_addr, &shape, NULL, NULL);
    x32 m1 = {.fp32 = -1.0f};
    okk_bdc_32bit_set_C(minus_one, m1, &shape, NULL);
    fp32_or_addr_t src0 = {.is_addr = true, .context.addr = x};
    fp32_or_addr_t src1 = {.is_addr = false, .context.val = 0.5f};
    x32_or_addr_t sel0 = {.is_addr = true, .context.addr = x};
    x32_or_addr_t sel1 = {.is_addr = true, .context.addr = minus_one};
    okk_bdc_greater_select(y, &src0, &src1, &sel0, &sel1, &shape);
    x32 one = {._4N_u8 = {0x00, 0x00, 0x80, 0x3f}};
    okk_bdc_greater_C_select_value(z, x, 0.0f, one, &shape, NULL, NULL);
    okk_bdc_32bit_or_C(z, z, (x32){.s32 = 1}, &shape, NULL, NULL);
    okk_gdma_32bit_cpy_L2S(p->output_addr, y, &shape, NULL, NULL);
    okk_gdma_32bit_cpy_L2S(p->output2_addr, z, &shape, NULL, NULL);
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(unions);
