/* Public OKKernel kernel kept verbatim as a test input (npusim tests/okk/test_c_public.py).
   repository: github.com/1146877017/tpucontest  path: contest_result/perfect_code_show/181****3709/ok_device_matmul_contest.c  commit: cbb7041bcd2a164ffe12371a0a9a9c7c5b4be5e7 */
#include "okk.h"
#ifndef NULL
#define NULL 0
#endif
#define DIV_UP(a, b) (((a) - 1) / (b) + 1)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define LOCAL_MEM_SIZE okk_local_mem_size_per_npu()
#define NPU_NUM okk_npu_num()
#define NO_USE 0
typedef struct {
    int left_rows, left_cols, right_cols;
    unsigned long long output_addr;
    unsigned long long left_addr;
    unsigned long long right_addr;
} __attribute__((packed)) param_t;

static void matmul_direct(param_t * param, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = param->left_rows;
    int left_cols = param->left_cols;
    int right_cols = param->right_cols;

    dim4 left_shape = {left_rows, DIV_UP(left_cols, left_cols_per_channel), 1, left_cols_per_channel};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    dim4 output_stride, left_stride, right_stride;

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size + right_size + output_size;

    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }

    int left_addr = 0;
    int right_addr = left_addr + left_size;
    int output_addr = right_addr + right_size;

    okk_gdma_32bit_matrix_S2L(left_addr, param->left_addr, left_rows, left_cols, left_cols_per_channel, left_cols);
    okk_gdma_32bit_matrix_S2L(right_addr, param->right_addr, left_cols, right_cols, right_cols_per_channel, right_cols);
    okk_bdc_matmul(output_addr, left_addr, right_addr, 0, left_rows, left_cols, right_cols, 
            left_cols_per_channel, right_cols_per_channel, false, false);
    okk_gdma_32bit_matrix_L2S(param->output_addr, output_addr, left_rows, right_cols, right_cols_per_channel, right_cols);
}

// 不使用 pingpang buffer, 单次搬运数量尽可能大.
static void matmul_splitM(param_t * param, int msplit, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = msplit;
    int left_cols = param->left_cols;
    int right_cols = param->right_cols;

    dim4 output_stride, left_stride, right_stride;

    dim4 left_shape = {left_rows, DIV_UP(left_cols, left_cols_per_channel), 1, left_cols_per_channel};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size + right_size + output_size;

    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }

    int left_addr = 0;
    int right_addr = left_addr + left_size;
    int output_addr = right_addr + right_size;

    int left_rows_total = param->left_rows;
    int left_rows_start;

    okk_gdma_32bit_matrix_S2L(right_addr, param->right_addr, left_cols, right_cols, right_cols_per_channel, right_cols);

    for(left_rows_start = 0; left_rows_start < left_rows_total; left_rows_start += left_rows)
    {
        int left_rows_cur = MIN(left_rows_total - left_rows_start, left_rows);

        okk_gdma_32bit_matrix_S2L(left_addr, param->left_addr + left_rows_start * left_cols * sizeof(float),
                left_rows_cur, left_cols, left_cols_per_channel, left_cols);

        okk_bdc_matmul(output_addr, left_addr, right_addr, 0, left_rows_cur, left_cols, right_cols, 
                left_cols_per_channel, right_cols_per_channel, false, false);

        okk_gdma_32bit_matrix_L2S(param->output_addr + left_rows_start * right_cols * sizeof(float), 
                output_addr, left_rows_cur, right_cols, right_cols_per_channel, right_cols);
    }
}

#if 1
// left 使用 pingpang buffer.
static void matmul_splitM_left(param_t * param, int msplit, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = msplit;
    int left_cols = param->left_cols;
    int right_cols = param->right_cols;

    dim4 output_stride, left_stride, right_stride;

    dim4 left_shape = {left_rows, DIV_UP(left_cols, left_cols_per_channel), 1, left_cols_per_channel};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size * 2 + right_size + output_size;

    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }

    int left_addr_1 = 0;
    int left_addr_2 = left_addr_1 + left_size;
    int right_addr = left_addr_2 + left_size;
    int output_addr = right_addr + right_size;

    int left_addr[2] = {left_addr_1, left_addr_2};
    int index = 0;

    int left_rows_total = param->left_rows;
    int left_rows_start;

    okk_gdma_32bit_matrix_S2L(right_addr, param->right_addr, left_cols, right_cols, right_cols_per_channel, right_cols);

    for(left_rows_start = 0; left_rows_start < left_rows_total; left_rows_start += left_rows)
    {
        int left_rows_cur = MIN(left_rows_total - left_rows_start, left_rows);

        if(left_rows_start == 0)
            okk_gdma_32bit_matrix_S2L(left_addr[index&1], param->left_addr + left_rows_start * left_cols * sizeof(float),
                    left_rows_cur, left_cols, left_cols_per_channel, left_cols);

        if(left_rows_start + left_rows < left_rows_total)
            okk_parallel_start();

        okk_bdc_matmul(output_addr, left_addr[index&1], right_addr, 0, left_rows_cur, left_cols, right_cols, 
                left_cols_per_channel, right_cols_per_channel, false, false);

        index++;
        if(left_rows_start + left_rows < left_rows_total)
        {
            int left_rows_start_next = left_rows_start + left_rows;
            int left_rows_next = MIN(left_rows_total - left_rows_start_next, left_rows);
            okk_gdma_32bit_matrix_S2L(left_addr[index&1], param->left_addr + left_rows_start_next * left_cols * sizeof(float),
                    left_rows_next, left_cols, left_cols_per_channel, left_cols);
            okk_parallel_end();
        }

        okk_gdma_32bit_matrix_L2S(param->output_addr + left_rows_start * right_cols * sizeof(float), 
                output_addr, left_rows_cur, right_cols, right_cols_per_channel, right_cols);
    }
}
#endif

// output 使用 pingpang buffer.
static void matmul_splitM_output(param_t * param, int msplit, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = msplit;
    int left_cols = param->left_cols;
    int right_cols = param->right_cols;

    dim4 output_stride, left_stride, right_stride;

    dim4 left_shape = {left_rows, DIV_UP(left_cols, left_cols_per_channel), 1, left_cols_per_channel};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size + right_size + output_size * 2;

    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }

    int left_addr = 0;
    int right_addr = left_addr + left_size;
    int output_addr_1 = right_addr + right_size;
    int output_addr_2 = output_addr_1 + output_size;

    int output_addr[2] = {output_addr_1, output_addr_2};
    int index = 0;

    int left_rows_total = param->left_rows;
    int left_rows_start;

    okk_gdma_32bit_matrix_S2L(right_addr, param->right_addr, left_cols, right_cols, right_cols_per_channel, right_cols);

    int left_rows_start_prev = 0;
    int left_rows_prev = 0;

    for(left_rows_start = 0; left_rows_start < left_rows_total; left_rows_start += left_rows)
    {
        int left_rows_cur = MIN(left_rows_total - left_rows_start, left_rows);

        okk_gdma_32bit_matrix_S2L(left_addr, param->left_addr + left_rows_start * left_cols * sizeof(float),
                left_rows_cur, left_cols, left_cols_per_channel, left_cols);

        if( left_rows_start > 0 )
            okk_parallel_start();

        okk_bdc_matmul(output_addr[index&1], left_addr, right_addr, 0, left_rows_cur, left_cols, right_cols, 
                left_cols_per_channel, right_cols_per_channel, false, false);

        index ++;
        if( left_rows_start > 0 )
        {
            okk_gdma_32bit_matrix_L2S(param->output_addr + left_rows_start_prev * right_cols * sizeof(float), 
                    output_addr[index&1], left_rows_prev, right_cols, right_cols_per_channel, right_cols);
            okk_parallel_end();
        }
        left_rows_start_prev = left_rows_start;
        left_rows_prev = left_rows_cur;
    }

    index ++;
    okk_gdma_32bit_matrix_L2S(param->output_addr + left_rows_start_prev * right_cols * sizeof(float), 
            output_addr[index&1], left_rows_prev, right_cols, right_cols_per_channel, right_cols);
}

// 全流水线模式.
static void matmul_splitM_pipe(param_t * param, int msplit, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = msplit;
    int left_cols = param->left_cols;
    int right_cols = param->right_cols;

    dim4 output_stride, left_stride, right_stride;

    dim4 left_shape = {left_rows, DIV_UP(left_cols, left_cols_per_channel), 1, left_cols_per_channel};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size * 2 + right_size + output_size * 2;

    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }

    int left_addr_1 = 0;
    int left_addr_2 = left_addr_1 + left_size;
    int right_addr = left_addr_2 + left_size;
    int output_addr_1 = right_addr + right_size;
    int output_addr_2 = output_addr_1 + output_size;

    int left_addr[2] = {left_addr_1, left_addr_2};
    int output_addr[2] = {output_addr_1, output_addr_2};
    int index = 0;

    int left_rows_total = param->left_rows;
    int left_rows_start;

    okk_gdma_32bit_matrix_S2L(right_addr, param->right_addr, left_cols, right_cols, right_cols_per_channel, right_cols);

    int left_rows_start_prev = 0;
    int left_rows_prev = 0;
    int left_rows_start_prev_2 = 0;
    int left_rows_prev_2 = 0;

    for(left_rows_start = 0; left_rows_start < left_rows_total; left_rows_start += left_rows)
    {
        int left_rows_cur = MIN(left_rows_total - left_rows_start, left_rows);
        int index1 = index + 1;

        okk_parallel_start();
        okk_gdma_32bit_matrix_S2L(left_addr[index&1], param->left_addr + left_rows_start * left_cols * sizeof(float),
                left_rows_cur, left_cols, left_cols_per_channel, left_cols);

        if( left_rows_start > 0 )
            okk_bdc_matmul(output_addr[index1&1], left_addr[index1&1], right_addr, 0, left_rows_prev, left_cols, right_cols,
                    left_cols_per_channel, right_cols_per_channel, false, false);

        if( left_rows_start_prev >  0 )
            okk_gdma_32bit_matrix_L2S(param->output_addr + left_rows_start_prev_2 * right_cols * sizeof(float),
                    output_addr[index&1], left_rows_prev_2, right_cols, right_cols_per_channel, right_cols);
        okk_parallel_end();

        left_rows_start_prev_2 = left_rows_start_prev;
        left_rows_start_prev = left_rows_start;
        left_rows_prev_2 = left_rows_prev;
        left_rows_prev = left_rows_cur;
        index ++;
    }

    {
        int index1 = index + 1;
        okk_parallel_start();
        okk_bdc_matmul(output_addr[index1&1], left_addr[index1&1], right_addr, 0, left_rows_prev, left_cols, right_cols,
                left_cols_per_channel, right_cols_per_channel, false, false);

        if( left_rows_start_prev >  0 )
            okk_gdma_32bit_matrix_L2S(param->output_addr + left_rows_start_prev_2 * right_cols * sizeof(float),
                    output_addr[index&1], left_rows_prev_2, right_cols, right_cols_per_channel, right_cols);
        okk_parallel_end();
    }

    {
        left_rows_start_prev_2 = left_rows_start_prev;
        left_rows_prev_2 = left_rows_prev;
        index ++;
        okk_gdma_32bit_matrix_L2S(param->output_addr + left_rows_start_prev_2 * right_cols * sizeof(float),
                output_addr[index&1], left_rows_prev_2, right_cols, right_cols_per_channel, right_cols);
    }
}

static void matmul_splitM_vec1024(param_t * param, int msplit)
{
    int width = 1024;
    int height = 1;
    int channel = NPU_NUM;
    int num = msplit / channel;

    dim4 left_shape = {num, channel, height, width};
    dim4 right_shape = {1, 64, height, width};
    dim4 output_shape = {num, channel, height, 1};

    dim4 left_stride, output_stride;
    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = left_stride.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size * 2 + right_size + output_size * 2;

    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }

    local_addr_t left_addr_1 = 0;
    local_addr_t left_addr_2 = left_addr_1 + left_size;
    local_addr_t right_addr = left_addr_2 + left_size;
    local_addr_t output_addr_1 = right_addr + right_size;
    local_addr_t output_addr_2 = output_addr_1 + output_size;

    local_addr_t left_addr[2] = {left_addr_1, left_addr_2};
    local_addr_t output_addr[2] = {output_addr_1, output_addr_2};

    dim4 right_stride = {0, 0, 0, 1};  // 
    okk_gdma_32bit_cpy_S2L(right_addr, param->right_addr, &right_shape, NULL, &right_stride);

    int index = 0;

    okk_gdma_32bit_cpy_S2L(left_addr[0], param->left_addr, &left_shape, NULL, NULL);

    for(int mstart=0; mstart < param->left_rows; mstart += msplit)
    {
        int index1 = index + 1;
        okk_parallel_start();
        if( mstart + msplit < param->left_rows )
        {
            okk_gdma_32bit_cpy_S2L(left_addr[index1&1], param->left_addr + (mstart + msplit) * 1024 * sizeof(float), &left_shape, NULL, NULL);
        }

        okk_bdc_mul(left_addr[index&1], left_addr[index&1], right_addr, &left_shape, NULL, NULL, &right_stride);
        for(int t=512; t>1; t/=2)
        {
            dim4 shape_t = {num, channel, height, t * 2};
            dim4 stride_t;
            okk_128_byte_aligned_stride_for_32bit(&stride_t, 0, &shape_t);
            shape_t.w = t;
            okk_bdc_add(left_addr[index&1], left_addr[index&1], left_addr[index&1] + t * sizeof(float), &shape_t, NULL, &stride_t, &stride_t);
        }
        {
            int t = 1;
            dim4 shape_t = {num, channel, height, t * 2};
            dim4 stride_t;
            okk_128_byte_aligned_stride_for_32bit(&stride_t, 0, &shape_t);
            shape_t.w = t;
            okk_bdc_add(output_addr[index&1], left_addr[index&1], left_addr[index&1] + t * sizeof(float), &shape_t, NULL, &stride_t, &stride_t);
        }

        if( mstart > 0 )
        {
            okk_gdma_32bit_cpy_L2S(param->output_addr + (mstart - msplit) * 1 * sizeof(float), output_addr[index1&1], &output_shape, NULL, NULL);
        }
        okk_parallel_end();
        index ++;
    }

    int index1 = index + 1;
    okk_gdma_32bit_cpy_L2S(param->output_addr + (param->left_rows - msplit) * 1 * sizeof(float), output_addr[index1&1], &output_shape, NULL, NULL);
}

static void matmul_splitN(param_t * param, int nsplit, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = param->left_rows;
    int left_cols = param->left_cols;
    int right_cols = nsplit;

    dim4 output_stride, left_stride, right_stride;

    dim4 left_shape = {left_rows, DIV_UP(left_cols, left_cols_per_channel), 1, left_cols_per_channel};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size + right_size + output_size;

    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }

    int left_addr = 0;
    int right_addr = left_addr + left_size;
    int output_addr = right_addr + right_size;

    int right_cols_total = param->right_cols;
    int right_cols_start;

    okk_gdma_32bit_matrix_S2L(left_addr, param->left_addr, left_rows, left_cols, left_cols_per_channel, left_cols);

    for(right_cols_start = 0; right_cols_start < right_cols_total; right_cols_start += right_cols)
    {
        int right_cols_cur = MIN(right_cols_total - right_cols_start, right_cols);

        okk_gdma_32bit_matrix_S2L(right_addr, param->right_addr + right_cols_start * sizeof(float), 
                left_cols, right_cols_cur, right_cols_per_channel, right_cols_total);

        okk_bdc_matmul(output_addr, left_addr, right_addr, 0, left_rows, left_cols, right_cols_cur, 
                left_cols_per_channel, right_cols_per_channel, false, false);

        okk_gdma_32bit_matrix_L2S(param->output_addr + right_cols_start * sizeof(float), 
                output_addr, left_rows, right_cols_cur, right_cols_per_channel, right_cols_total);
    }
}

// right 使用 pingpang buffer. 
// 未完成.
static void matmul_splitN_right(param_t * param, int nsplit, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = param->left_rows;
    int left_cols = param->left_cols;
    int right_cols = nsplit;

    dim4 output_stride, left_stride, right_stride;

    dim4 left_shape = {left_rows, DIV_UP(left_cols, left_cols_per_channel), 1, left_cols_per_channel};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size + right_size * 2 + output_size;

    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }

    int left_addr = 0;
    int right_addr_1 = left_addr + left_size;
    int right_addr_2 = right_addr_1 + right_size;
    int output_addr = right_addr_2 + right_size;

    int right_addr[2] = {right_addr_1, right_addr_2};
    int index = 0;

    int right_cols_total = param->right_cols;
    int right_cols_start;

    okk_gdma_32bit_matrix_S2L(left_addr, param->left_addr, left_rows, left_cols, left_cols_per_channel, left_cols);

    for(right_cols_start = 0; right_cols_start < right_cols_total; right_cols_start += right_cols)
    {
        int right_cols_cur = MIN(right_cols_total - right_cols_start, right_cols);

        if(right_cols_start == 0)
            okk_gdma_32bit_matrix_S2L(right_addr[index&1], param->right_addr + right_cols_start * sizeof(float), 
                    left_cols, right_cols_cur, right_cols_per_channel, right_cols_total);

        if(right_cols_start + right_cols < right_cols_total)
            okk_parallel_start();

        okk_bdc_matmul(output_addr, left_addr, right_addr[index&1], 0, left_rows, left_cols, right_cols_cur, 
                left_cols_per_channel, right_cols_per_channel, false, false);

        index ++;
        if(right_cols_start + right_cols < right_cols_total)
        {
            int right_cols_start_next = right_cols_start + right_cols;
            int right_cols_next = MIN(right_cols_total - right_cols_start_next, right_cols);
            okk_gdma_32bit_matrix_S2L(right_addr[index&1], param->right_addr + right_cols_start_next * sizeof(float), 
                    left_cols, right_cols_next, right_cols_per_channel, right_cols_total);
            okk_parallel_end();
        }

        okk_gdma_32bit_matrix_L2S(param->output_addr + right_cols_start * sizeof(float), 
                output_addr, left_rows, right_cols_cur, right_cols_per_channel, right_cols_total);
    }
}

static void matmul_splitN_pipe(param_t * param, int nsplit, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = param->left_rows;
    int left_cols = param->left_cols;
    int right_cols = nsplit;

    dim4 output_stride, left_stride, right_stride;

    dim4 left_shape = {left_rows, DIV_UP(left_cols, left_cols_per_channel), 1, left_cols_per_channel};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size + right_size * 2 + output_size * 2;

    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }

    int left_addr = 0;
    int right_addr_1 = left_addr + left_size;
    int right_addr_2 = right_addr_1 + right_size;
    int output_addr_1 = right_addr_2 + right_size;
    int output_addr_2 = output_addr_1 + output_size;

    int right_addr[2] = {right_addr_1, right_addr_2};
    int output_addr[2] = {output_addr_1, output_addr_2};
    int index = 0;

    int right_cols_total = param->right_cols;
    int right_cols_start;

    okk_gdma_32bit_matrix_S2L(left_addr, param->left_addr, left_rows, left_cols, left_cols_per_channel, left_cols);

    int right_cols_start_prev = 0;
    int right_cols_prev = 0;
    int right_cols_start_prev_2 = 0;
    int right_cols_prev_2 = 0;

    for(right_cols_start = 0; right_cols_start < right_cols_total; right_cols_start += right_cols)
    {
        int right_cols_cur = MIN(right_cols_total - right_cols_start, right_cols);
        int index1 = index + 1;

        okk_parallel_start();
        okk_gdma_32bit_matrix_S2L(right_addr[index&1], param->right_addr + right_cols_start * sizeof(float),
                left_cols, right_cols_cur, right_cols_per_channel, right_cols_total);

        if( right_cols_start > 0 )
            okk_bdc_matmul(output_addr[index1&1], left_addr, right_addr[index1&1], 0, left_rows, left_cols, right_cols_prev,
                    left_cols_per_channel, right_cols_per_channel, false, false);

        if( right_cols_start_prev > 0 )
            okk_gdma_32bit_matrix_L2S(param->output_addr + right_cols_start_prev_2 * sizeof(float),
                    output_addr[index&1], left_rows, right_cols_prev_2, right_cols_per_channel, right_cols_total);
        okk_parallel_end();

        right_cols_start_prev_2 = right_cols_start_prev;
        right_cols_start_prev = right_cols_start;
        right_cols_prev_2 = right_cols_prev;
        right_cols_prev = right_cols_cur;
        index ++;
    }

    {
        int index1 = index + 1;
        okk_parallel_start();
        okk_bdc_matmul(output_addr[index1&1], left_addr, right_addr[index1&1], 0, left_rows, left_cols, right_cols_prev,
                left_cols_per_channel, right_cols_per_channel, false, false);

        if( right_cols_start_prev > 0 )
            okk_gdma_32bit_matrix_L2S(param->output_addr + right_cols_start_prev_2 * sizeof(float),
                    output_addr[index&1], left_rows, right_cols_prev_2, right_cols_per_channel, right_cols_total);
        okk_parallel_end();

        right_cols_start_prev_2 = right_cols_start_prev;
        right_cols_prev_2 = right_cols_prev;
        index ++;
    }

    {
        okk_gdma_32bit_matrix_L2S(param->output_addr + right_cols_start_prev_2 * sizeof(float),
                output_addr[index&1], left_rows, right_cols_prev_2, right_cols_per_channel, right_cols_total);
    }
}

// 不使用 pingpang buffer.
static void matmul_splitK(param_t * param, int ksplit, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = param->left_rows;
    int left_cols = ksplit;
    int right_cols = param->right_cols;

    dim4 output_stride, left_stride, right_stride;

    dim4 left_shape = {left_rows, DIV_UP(left_cols, left_cols_per_channel), 1, left_cols_per_channel};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size + right_size + output_size;


    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }
    
    int left_addr = 0;
    int right_addr = left_addr + left_size;
    int output_addr = right_addr + right_size;

    int left_cols_total = param->left_cols;
    int left_cols_start;

    system_addr_t l2sram_addr = okk_l2_sram_start_addr();
    system_addr_t param_left_addr = param->left_addr;
    if( ksplit == 1 && left_rows * left_cols_total * sizeof(float) <= okk_l2_sram_size() )
    {
        dim4 shape_t = {1, 1, left_rows, left_cols_total};
        okk_gdma_32bit_cpy_S2S(l2sram_addr, param_left_addr, &shape_t, NULL, NULL);
        param_left_addr = l2sram_addr;
    }

    for(left_cols_start = 0; left_cols_start < left_cols_total; left_cols_start += left_cols)
    {
        int left_cols_cur = MIN(left_cols_total - left_cols_start, left_cols);

        okk_gdma_32bit_matrix_S2L(left_addr, param_left_addr + left_cols_start * sizeof(float),
                left_rows, left_cols_cur, left_cols_per_channel, left_cols_total);

        okk_gdma_32bit_matrix_S2L(right_addr, param->right_addr + left_cols_start * right_cols * sizeof(float), 
                left_cols_cur, right_cols, right_cols_per_channel, right_cols);

        okk_bdc_matmul(output_addr, left_addr, right_addr, 0, left_rows, left_cols_cur, right_cols, 
                left_cols_per_channel, right_cols_per_channel, false, left_cols_start != 0);
    }

    okk_gdma_32bit_matrix_L2S(param->output_addr, output_addr, left_rows, right_cols, right_cols_per_channel, right_cols);
}

// ksplit <= 64.
static void matmul_splitK1(param_t * param, int ksplit, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = param->left_rows;
    int left_cols = ksplit;
    int right_cols = param->right_cols;

    dim4 output_stride, left_stride, right_stride;

    dim4 left_shape = {left_rows, left_cols, 1, 1};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size + right_size + output_size;

    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }

    int left_addr = 0;
    int right_addr = left_addr + left_size;
    int output_addr = right_addr + right_size;

    int left_cols_total = param->left_cols;
    int left_cols_start;

    system_addr_t l2sram_addr = okk_l2_sram_start_addr();
    system_addr_t param_left_addr = param->left_addr;
    if( ksplit == 1 && left_rows * left_cols_total * sizeof(float) <= okk_l2_sram_size() )
    {
        dim4 shape_t = {1, 1, left_rows, left_cols_total};
        okk_gdma_32bit_cpy_S2S(l2sram_addr, param_left_addr, &shape_t, NULL, NULL);
        param_left_addr = l2sram_addr;
    }

    for(left_cols_start = 0; left_cols_start < left_cols_total; left_cols_start += left_cols)
    {
        int left_cols_cur = MIN(left_cols_total - left_cols_start, left_cols);

        okk_gdma_32bit_matrix_S2L(right_addr, param->right_addr + left_cols_start * right_cols * sizeof(float),
                left_cols_cur, right_cols, right_cols_per_channel, right_cols);

        if( left_cols_start < 2048 )
        {
	    okk_gdma_32bit_matrix_S2L(left_addr, param_left_addr + left_cols_start * sizeof(float),
		    left_rows, left_cols_cur, left_cols_per_channel, left_cols_total);

            okk_bdc_matmul(output_addr, left_addr, right_addr, 0, left_rows, left_cols_cur, right_cols, 
                    left_cols_per_channel, right_cols_per_channel, false, left_cols_start != 0);
        }
        else
        {
	    okk_gdma_32bit_matrix_S2L(left_addr, param_left_addr + left_cols_start * sizeof(float),
		    left_rows, left_cols_cur, 1, left_cols_total);

            for(int i=0; i<left_cols_cur; i++)
            {
                local_addr_t left_addr_cur = left_addr + i * LOCAL_MEM_SIZE;
                local_addr_t right_addr_cur = right_addr + i * right_stride.n * sizeof(float); 
                okk_bdc_matmul(output_addr, left_addr_cur, right_addr_cur, 0, left_rows, 1, right_cols, 
                        left_cols_per_channel, right_cols_per_channel, false, left_cols_start != 0 || i != 0);
            }
        }
    }

    okk_gdma_32bit_matrix_L2S(param->output_addr, output_addr, left_rows, right_cols, right_cols_per_channel, right_cols);
}

// left 使用 pingpang buffer.
static void matmul_splitK_left(param_t * param, int ksplit, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = param->left_rows;
    int left_cols = ksplit;
    int right_cols = param->right_cols;

    dim4 output_stride, left_stride, right_stride;

    dim4 left_shape = {left_rows, DIV_UP(left_cols, left_cols_per_channel), 1, left_cols_per_channel};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size * 2 + right_size + output_size;

    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }
    
    int left_addr_1 = 0;
    int left_addr_2 = left_addr_1 + left_size;
    int right_addr = left_addr_2 + left_size;
    int output_addr = right_addr + right_size;

    int left_addr[2] = {left_addr_1, left_addr_2};
    int index = 0;

    int left_cols_total = param->left_cols;
    int left_cols_start;

    for(left_cols_start = 0; left_cols_start < left_cols_total; left_cols_start += left_cols)
    {
        int left_cols_cur = MIN(left_cols_total - left_cols_start, left_cols);

        if(left_cols_start == 0 )
            okk_gdma_32bit_matrix_S2L(left_addr[index&1], param->left_addr + left_cols_start * sizeof(float),
                    left_rows, left_cols_cur, left_cols_per_channel, left_cols_total);

        okk_gdma_32bit_matrix_S2L(right_addr, param->right_addr + left_cols_start * right_cols * sizeof(float), 
                left_cols_cur, right_cols, right_cols_per_channel, right_cols);

        if(left_cols_start + left_cols < left_cols_total)
            okk_parallel_start();

        okk_bdc_matmul(output_addr, left_addr[index&1], right_addr, 0, left_rows, left_cols_cur, right_cols, 
                left_cols_per_channel, right_cols_per_channel, false, left_cols_start != 0);

        index ++;
        if(left_cols_start + left_cols < left_cols_total)
        {
            int left_cols_start_next = left_cols_start + left_cols;
            int left_cols_next = MIN(left_cols_total - left_cols_start_next, left_cols);
            okk_gdma_32bit_matrix_S2L(left_addr[index&1], param->left_addr + left_cols_start_next * sizeof(float),
                    left_rows, left_cols_next, left_cols_per_channel, left_cols_total);
            okk_parallel_end();
        } 
    }

    okk_gdma_32bit_matrix_L2S(param->output_addr, output_addr, left_rows, right_cols, right_cols_per_channel, right_cols);
}

// right 使用 pingpang buffer.
static void matmul_splitK_right(param_t * param, int ksplit, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = param->left_rows;
    int left_cols = ksplit;
    int right_cols = param->right_cols;

    dim4 output_stride, left_stride, right_stride;

    dim4 left_shape = {left_rows, DIV_UP(left_cols, left_cols_per_channel), 1, left_cols_per_channel};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size + right_size * 2 + output_size;


    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }
    
    int left_addr = 0;
    int right_addr_1 = left_addr + left_size;
    int right_addr_2 = right_addr_1 + right_size;
    int output_addr = right_addr_2 + right_size;

    int right_addr[2] = {right_addr_1, right_addr_2};
    int index = 0;

    int left_cols_total = param->left_cols;
    int left_cols_start;

    system_addr_t l2sram_addr = okk_l2_sram_start_addr();
    system_addr_t param_left_addr = param->left_addr;
    if( ksplit < 128 && left_rows * left_cols_total * sizeof(float) <= okk_l2_sram_size() )
    {
        dim4 shape_t = {1, 1, left_rows, left_cols_total};
        okk_gdma_32bit_cpy_S2S(l2sram_addr, param_left_addr, &shape_t, NULL, NULL);
        param_left_addr = l2sram_addr;
    }

    for(left_cols_start = 0; left_cols_start < left_cols_total; left_cols_start += left_cols)
    {
        int left_cols_cur = MIN(left_cols_total - left_cols_start, left_cols);

        okk_gdma_32bit_matrix_S2L(left_addr, param_left_addr + left_cols_start * sizeof(float),
                left_rows, left_cols_cur, left_cols_per_channel, left_cols_total);

        if(left_cols_start == 0 )
            okk_gdma_32bit_matrix_S2L(right_addr[index&1], param->right_addr + left_cols_start * right_cols * sizeof(float), 
                    left_cols_cur, right_cols, right_cols_per_channel, right_cols);

        if(left_cols_start + left_cols < left_cols_total)
            okk_parallel_start();

        okk_bdc_matmul(output_addr, left_addr, right_addr[index&1], 0, left_rows, left_cols_cur, right_cols, 
                left_cols_per_channel, right_cols_per_channel, false, left_cols_start != 0);

        index ++;
        if(left_cols_start + left_cols < left_cols_total)
        {
            int left_cols_start_next = left_cols_start + left_cols;
            int left_cols_next = MIN(left_cols_total - left_cols_start_next, left_cols);
            okk_gdma_32bit_matrix_S2L(right_addr[index&1], param->right_addr + left_cols_start_next * right_cols * sizeof(float), 
                    left_cols_next, right_cols, right_cols_per_channel, right_cols);
            okk_parallel_end();
        } 
    }

    okk_gdma_32bit_matrix_L2S(param->output_addr, output_addr, left_rows, right_cols, right_cols_per_channel, right_cols);
}

// left/right 使用 pingpang buffer.
static void matmul_splitK_pingpang(param_t * param, int ksplit, int left_cols_per_channel, int right_cols_per_channel)
{
    int left_rows = param->left_rows;
    int left_cols = ksplit;
    int right_cols = param->right_cols;

    dim4 output_stride, left_stride, right_stride;

    dim4 left_shape = {left_rows, DIV_UP(left_cols, left_cols_per_channel), 1, left_cols_per_channel};
    dim4 right_shape = {left_cols, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};
    dim4 output_shape = {left_rows, DIV_UP(right_cols, right_cols_per_channel), 1, right_cols_per_channel};

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size * 2 + right_size * 2 + output_size;


    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        return;
    }
    
    int left_addr_1 = 0;
    int left_addr_2 = left_addr_1 + left_size;
    int right_addr_1 = left_addr_2 + left_size;
    int right_addr_2 = right_addr_1 + right_size;
    int output_addr = right_addr_2 + right_size;

    int left_addr[2] = {left_addr_1, left_addr_2};
    int right_addr[2] = {right_addr_1, right_addr_2};
    int index = 0;

    int left_cols_total = param->left_cols;
    int left_cols_start;

    system_addr_t l2sram_addr = okk_l2_sram_start_addr();
    system_addr_t param_left_addr = param->left_addr;
    if( ksplit < 128 && left_rows * left_cols_total * sizeof(float) <= okk_l2_sram_size() )
    {
        dim4 shape_t = {1, 1, left_rows, left_cols_total};
        okk_gdma_32bit_cpy_S2S(l2sram_addr, param_left_addr, &shape_t, NULL, NULL);
        param_left_addr = l2sram_addr;
    }

    for(left_cols_start = 0; left_cols_start < left_cols_total; left_cols_start += left_cols)
    {
        int left_cols_cur = MIN(left_cols_total - left_cols_start, left_cols);

        if(left_cols_start == 0 )
        {
            okk_gdma_32bit_matrix_S2L(left_addr[index&1], param_left_addr + left_cols_start * sizeof(float),
                    left_rows, left_cols_cur, left_cols_per_channel, left_cols_total);

            okk_gdma_32bit_matrix_S2L(right_addr[index&1], param->right_addr + left_cols_start * right_cols * sizeof(float), 
                    left_cols_cur, right_cols, right_cols_per_channel, right_cols);
        }

        if(left_cols_start + left_cols < left_cols_total)
            okk_parallel_start();

        okk_bdc_matmul(output_addr, left_addr[index&1], right_addr[index&1], 0, left_rows, left_cols_cur, right_cols, 
                left_cols_per_channel, right_cols_per_channel, false, left_cols_start != 0);

        index ++;
        if(left_cols_start + left_cols < left_cols_total)
        {
            int left_cols_start_next = left_cols_start + left_cols;
            int left_cols_next = MIN(left_cols_total - left_cols_start_next, left_cols);
            okk_gdma_32bit_matrix_S2L(left_addr[index&1], param_left_addr + left_cols_start_next * sizeof(float),
                    left_rows, left_cols_next, left_cols_per_channel, left_cols_total);
            okk_gdma_32bit_matrix_S2L(right_addr[index&1], param->right_addr + left_cols_start_next * right_cols * sizeof(float), 
                    left_cols_next, right_cols, right_cols_per_channel, right_cols);
            okk_parallel_end();
        } 
    }

    okk_gdma_32bit_matrix_L2S(param->output_addr, output_addr, left_rows, right_cols, right_cols_per_channel, right_cols);
}

static void matmul_conv2d(const param_t * param, int left_cols_per_channel, int left_rows_split)
{
    int left_rows = left_rows_split;
    int left_cols = param->left_cols;
    int right_cols = param->right_cols;

    int channel = left_cols / left_cols_per_channel;

    dim4 left_shape = {left_rows, channel, 1, left_cols_per_channel};
    dim4 right_shape = {1, channel, left_cols_per_channel, right_cols};
    dim4 middle_shape = {left_rows, channel, 1, right_cols};
    dim4 kernel_shape = {32, 1, 1, 2};
    dim4 output_shape = {left_rows, 1, 1, right_cols};

    dim4 output_stride, left_stride, middle_stride, kernel_stride, right_stride;

    okk_128_byte_aligned_stride_for_32bit(&left_stride, 0, &left_shape);
    okk_128_byte_aligned_stride_for_32bit(&right_stride, 0, &right_shape);
    okk_128_byte_aligned_stride_for_32bit(&middle_stride, 0, &middle_shape);
    okk_compact_stride(&kernel_stride, 0, &kernel_shape);
    okk_128_byte_aligned_stride_for_32bit(&output_stride, 0, &output_shape);

    unsigned int left_size = left_stride.n * left_shape.n * sizeof(float);
    unsigned int right_size = right_stride.n * right_shape.n * sizeof(float);
    unsigned int middle_size = middle_stride.n * middle_shape.n * sizeof(float);
    unsigned int kernel_size = kernel_stride.n * kernel_shape.n * sizeof(float);
    unsigned int output_size = output_stride.n * output_shape.n * sizeof(float);
    unsigned int total_size = left_size + right_size + middle_size + kernel_size + output_size;

    if( total_size > LOCAL_MEM_SIZE )
    {
        OKKERNEL_LOG("out of memory. %d\n", total_size);
        OKKERNEL_LOG("%d %d %d %d\n", left_size, right_size, middle_size, output_size);
        return;
    }

    int left_addr = 0;
    int right_addr = left_addr + left_size;
    int middle_addr = right_addr + right_size;
    int kernel_addr = middle_addr + middle_size;
    int output_addr = kernel_addr + kernel_size;

    okk_gdma_32bit_cpy_S2L(right_addr, param->right_addr, &right_shape, NULL, NULL);
    int left_rows_start;
    for(left_rows_start = 0; left_rows_start < param->left_rows; left_rows_start += left_rows_split)
    {
        okk_gdma_32bit_cpy_S2L(left_addr, param->left_addr + left_rows_start * left_cols * sizeof(float), &left_shape, NULL, NULL);

        dim4 left_stride_zero = {left_stride.n, left_stride.c, 0, 0};
        dim4 right_stride_zero = {0, right_stride.c, 0, 1};

        okk_bdc_mul(middle_addr, left_addr, right_addr, &middle_shape, &middle_stride, &left_stride_zero, &right_stride_zero);
        for(int t = 1; t<left_cols_per_channel; t++)
        {
            local_addr_t left_addr_cur = left_addr + t * sizeof(float);
            local_addr_t right_addr_cur = right_addr + t * right_stride.h * sizeof(float);
            okk_bdc_mac(middle_addr, left_addr_cur, right_addr_cur, &middle_shape, &middle_stride, &left_stride_zero, &right_stride_zero);
        }

        x32 one; one.fp32 = 1;
        okk_bdc_32bit_set_C(kernel_addr, one, &kernel_shape, &kernel_stride);

        dim4 kernel_shape_2IC = {32, 1, 1, 1};
        dim4 kernel_stride_2IC;
        okk_compact_stride(&kernel_stride_2IC, 0, &kernel_shape_2IC);

        okk_bdc_conv2d(output_addr, middle_addr, kernel_addr, 0, &middle_shape, 1, 1, 1, &middle_stride, &kernel_stride_2IC, false, false, NULL, NULL, NULL);

        okk_gdma_32bit_cpy_L2S(param->output_addr + left_rows_start * right_cols * sizeof(float), output_addr, &output_shape, NULL, NULL);
    }
}

void matmul_contest(const void *args) {
    okk_initialize();
    param_t *param = (param_t *)args;
    (void)(param);
    // TODO
    int left_rows = param->left_rows;
    int left_cols = param->left_cols;
    int right_cols = param->right_cols;
    if( left_rows == 2 && left_cols == 100352 && right_cols == 2048 )        
    {   // 0
        // matmul_splitK_right(param, 1792, 28, 32); // 结果判定错误, 属于误差积累.
        // matmul_splitK_right(param, 1, 32, 32);    // PingPang Buffer 性能更低.
        matmul_splitK1(param, 64, 16, 32);
    }
    else if ( left_rows == 2 && left_cols == 1280 && right_cols == 1000 )
    {   // 1
        matmul_direct(param, 32, 32);
    }
    else if( left_rows == 2 && left_cols == 25088 && right_cols == 4096 )
    {   // 2
        // matmul_splitK_right(param, 896, 16, 64); // 结果判定错误, 属于误差积累.
        // matmul_splitK_right(param, 1, 16, 64);   // PingPang Buffer 性能更低.
        matmul_splitK1(param, 64, 16, 64);
    }
    else if( left_rows == 4 && left_cols == 1024 && right_cols == 25088 )
    {   // 3
        matmul_splitK_right(param, 32, 16, 128);
    }
    else if( left_rows == 32 && left_cols == 2048 && right_cols == 36 )
    {   // 4
         // matmul_direct(param, 32, 16);
         // matmul_splitK_pingpang(param, 512, 32, 16);
	 matmul_conv2d(param, 32, 32);
    }
    else if( left_rows == 64 && left_cols == 9216 && right_cols == 4096 )
    {   // 5
        // matmul_splitK_right(param, 128, 2, 8); // 结果判定错误, 属于误差积累.
        // matmul_splitK_right(param, 1, 16, 64);    // PingPang Buffer 性能更低.
        matmul_splitK1(param, 64, 16, 64);   
    }
    else if( left_rows == 79 && left_cols == 256 && right_cols == 4090 )
    {   // 6
         //  matmul_splitK_right(param, 64, 16, 64);
         //matmul_splitK_right(param, 32, 32, 64);
	 matmul_splitN_pipe(param, 2048, 32, 32);
    }
    else if( left_rows == 200 && left_cols == 4096 && right_cols == 324 )
    {    // 7
         matmul_splitK_pingpang(param, 1024, 32, 16);   // 判定结果会随机错误.
    }
    else if( left_rows == 256 && left_cols == 768 && right_cols == 3072 )
    {    // 8
        matmul_splitK_pingpang(param, 256, 32, 48);
    }
    else if( left_rows == 256 && left_cols == 3072 && right_cols == 768 )
    {    // 9
        // matmul_splitK_pingpang(param, 1024, 16, 16);
         matmul_splitK_pingpang(param, 512, 32, 16);
    }
    else if( left_rows == 300 && left_cols == 2048 && right_cols == 80 )
    {    // 10 
          // matmul_splitM_left(param, 100, 32, 16);
          // matmul_splitM_pipe(param, 100, 32, 16);
	   matmul_conv2d(param, 32, 300);
    }
    else if( left_rows == 1024 && left_cols == 1024 && right_cols == 1024 )
    {    // 11 
          // matmul_splitK_pingpang(param, 256, 16, 16);
          matmul_splitM_pipe(param, 256, 32, 16);
    }
    else if( left_rows == 2048 && left_cols == 4 && right_cols == 1024 )
    {    // 12
         // matmul_splitM(param, 512, 16, 16);
         matmul_splitM_output(param, 512, 16, 16);
    }
    else if( left_rows == 12544 && left_cols == 2 && right_cols == 1024 )
    {    // 13
        matmul_splitM_output(param, 1024, 2, 16);
    }
    else if( left_rows == 100352 && left_cols == 1024 && right_cols == 1 )
    {    // 14
        matmul_splitM_vec1024(param, 2048);
    }
    else
    {
        // unsed functions.
        matmul_splitN(param, 1, 1, 1);
        matmul_splitN_right(param, 1, 1, 1);
        matmul_splitK_left(param, 1, 1, 1);
        (void)matmul_splitK;
        (void)matmul_splitM;
        (void)matmul_splitM_left;
        (void)matmul_splitM_pipe;
	(void)matmul_splitN_pipe;
    }

    okk_poll();
}
OKKERNEL_FUNC_REGISTER(matmul_contest);


