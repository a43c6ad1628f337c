"""The one description of okk.h's functions, in the header's order: (name, C return type, C argument list).

Facts from Sophgo's okk.h (sophon-ai-algo/tpu_op_contest_s1 @5683093 okkernel/include/okk.h, 139 functions).
``generate.py`` writes okk.h and okk_shim.c from this table; ``bridge.py`` builds the ctypes callback table
from it at run time. ``tests/okk/test_c_generated.py`` fails when the committed files, this table and
``npusim.okk``'s exports disagree.
"""
from __future__ import annotations

# Kept in C (the shim): registration happens in a constructor before Python has set the callback table.
C_ONLY = ("okk_register_kernel_func", "okk_dump_registered_kernel_funcs")

# Values the shim hands to Python as ready-made Python objects (ctypes ``py_object``), each distinct value
# converted once per run: the call's "file.c:line" source, and what a const struct pointer points to.
# name -> kind code (0 marks an empty slot of the shim's cache).
OBJECT_KINDS: dict[str, int] = {"source": 1, "const dim4 *": 2, "const dim2 *": 3, "const Padding *": 4,
                                "const fp32_or_addr_t *": 5, "const x32_or_addr_t *": 6}

FUNCTIONS: list[tuple[str, str, str]] = [
    ("okk_register_kernel_func", "void", "const char *name, okk_kernel_func_t func"),
    ("okk_dump_registered_kernel_funcs", "void", ""),
    ("okk_set_id_node", "void", "void *node"),
    ("okk_get_id_node", "void", "void *node"),
    ("okk_enable_check_id_node", "void", ""),
    ("okk_disable_check_id_node", "void", ""),
    ("okk_global_mem_start_addr", "unsigned long long", ""),
    ("okk_local_mem_start_addr", "unsigned int", ""),
    ("okk_local_mem_bank_per_npu", "unsigned int", ""),
    ("okk_l2_sram_start_addr", "unsigned int", ""),
    ("okk_dtcm_start_addr", "unsigned int", ""),
    ("okk_lookup_table_start_addr", "unsigned int", ""),
    ("okk_lookup_table_size", "unsigned int", ""),
    ("okk_eu_num", "unsigned int", ""),
    ("okk_global_mem_addr", "unsigned char *", "unsigned long long addr"),
    ("okk_local_mem_addr", "unsigned char *", "unsigned int idx, unsigned int addr"),
    ("okk_l2_sram_addr", "unsigned char *", "unsigned int addr"),
    ("okk_dtcm_addr", "unsigned char *", "unsigned int addr"),
    ("okk_initialize", "void", ""),
    ("okk_poll", "void", ""),
    ("okk_parallel_start", "void", ""),
    ("okk_parallel_end", "void", ""),
    ("okk_is_parallel_state", "bool", ""),
    ("okk_local_mem_size_per_npu", "unsigned int", ""),
    ("okk_l2_sram_size", "unsigned int", ""),
    ("okk_dtcm_size", "unsigned int", ""),
    ("okk_npu_num", "int", ""),
    ("okk_start_npu_index", "int", "local_addr_t addr"),
    ("okk_channle_num_per_npu", "int", "int start_idx, int num_channels"),
    ("okk_128_byte_aligned_stride_for_32bit", "void", "dim4 *stride, int start_idx, const dim4 *shape"),
    ("okk_128_byte_aligned_stride_for_16bit", "void", "dim4 *stride, int start_idx, const dim4 *shape"),
    ("okk_128_byte_aligned_stride_for_8bit", "void", "dim4 *stride, int start_idx, const dim4 *shape"),
    ("okk_compact_stride", "void", "dim4 *stride, int start_idx, const dim4 *shape"),
    ("okk_continuous_stride", "void", "dim4 *stride, const dim4 *shape"),
    ("okk_gdma_32bit_cpy_S2L", "void", "local_addr_t dst_addr, system_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_gdma_32bit_cpy_L2S", "void", "system_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_gdma_32bit_cpy_L2L", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_gdma_32bit_cpy_S2S", "void", "system_addr_t dst_addr, system_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_gdma_32bit_matrix_S2L", "void", "local_addr_t dst_addr, system_addr_t src_addr, int rows, int cols, int cols_per_channel, int row_stride"),
    ("okk_gdma_32bit_matrix_L2S", "void", "system_addr_t dst_addr, local_addr_t src_addr, int rows, int cols, int cols_per_channel, int row_stride"),
    ("okk_gdma_32bit_set_C_system", "void", "system_addr_t dst_addr, x32 C, const dim4 *shape, const dim4 *dst_stride"),
    ("okk_gdma_32bit_set_C_local", "void", "local_addr_t dst_addr, x32 C, const dim4 *shape, const dim4 *dst_stride"),
    ("okk_gdma_16bit_cpy_S2L", "void", "local_addr_t dst_addr, system_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_gdma_16bit_cpy_L2S", "void", "system_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_gdma_16bit_cpy_L2L", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_gdma_16bit_cpy_S2S", "void", "system_addr_t dst_addr, system_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_gdma_16bit_set_C_system", "void", "system_addr_t dst_addr, x16 C, const dim4 *shape, const dim4 *dst_stride"),
    ("okk_gdma_16bit_set_C_local", "void", "local_addr_t dst_addr, x16 C, const dim4 *shape, const dim4 *dst_stride"),
    ("okk_gdma_8bit_cpy_S2L", "void", "local_addr_t dst_addr, system_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_gdma_8bit_cpy_L2S", "void", "system_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_gdma_8bit_cpy_L2L", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_gdma_8bit_cpy_S2S", "void", "system_addr_t dst_addr, system_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_gdma_8bit_set_C_system", "void", "system_addr_t dst_addr, x8 C, const dim4 *shape, const dim4 *dst_stride"),
    ("okk_gdma_8bit_set_C_local", "void", "local_addr_t dst_addr, x8 C, const dim4 *shape, const dim4 *dst_stride"),
    ("okk_bdc_32bit_cpy", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_32bit_set_C", "void", "local_addr_t dst_addr, x32 C, const dim4 *shape, const dim4 *dst_stride"),
    ("okk_bdc_fp32_to_int32", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape"),
    ("okk_bdc_lookup_int32_to_fp32", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape"),
    ("okk_bdc_rsqrt", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape"),
    ("okk_bdc_sqrt", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape"),
    ("okk_bdc_taylor_exp", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape, int num_series"),
    ("okk_bdc_lookup_exp", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape"),
    ("okk_bdc_exp", "void", "local_addr_t dst_addr, local_addr_t src_addr, local_addr_t work_addr, const dim4 *shape"),
    ("okk_bdc_exp_tunable", "void", "local_addr_t dst_addr, local_addr_t src_addr, local_addr_t work_addr, const dim4 *shape, int num_series"),
    ("okk_bdc_sigmoid", "void", "local_addr_t dst_addr, local_addr_t src_addr, local_addr_t work_addr, const dim4 *shape"),
    ("okk_bdc_sigmoid_tunable", "void", "local_addr_t dst_addr, local_addr_t src_addr, local_addr_t work_addr, const dim4 *shape, int num_series"),
    ("okk_bdc_tanh", "void", "local_addr_t dst_addr, local_addr_t src_addr, local_addr_t work_addr, const dim4 *shape"),
    ("okk_bdc_tanh_tunable", "void", "local_addr_t dst_addr, local_addr_t src_addr, local_addr_t work_addr, const dim4 *shape, int num_series"),
    ("okk_bdc_relu", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_reciprocal", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_neg", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_add", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_add_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, float C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_sub", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_sub_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, float C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_C_sub", "void", "local_addr_t dst_addr, local_addr_t src_addr, float C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_mul", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_mul_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, float C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_div", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_div_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, float C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_C_div", "void", "local_addr_t dst_addr, local_addr_t src_addr, float C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_mac", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_mac_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, float C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_max", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_max_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, float C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_min", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_min_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, float C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_greater_select_value", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, x32 select_val, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_greater_C_select_value", "void", "local_addr_t dst_addr, local_addr_t src_addr, float C, x32 select_val, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_C_greater_select_value", "void", "local_addr_t dst_addr, local_addr_t src_addr, float C, x32 select_val, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_equal_select_value", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, x32 select_val, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_equal_C_select_value", "void", "local_addr_t dst_addr, local_addr_t src_addr, float C, x32 select_val, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_32bit_and", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_32bit_and_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, x32 C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_32bit_or", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_32bit_or_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, x32 C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_32bit_xor", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_32bit_xor_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, x32 C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_32bit_arithmetic_shift", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_32bit_logical_shift", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_32bit_arithmetic_shift_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, int C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_32bit_logical_shift_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, int C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_32bit_C_arithmetic_shift", "void", "local_addr_t dst_addr, local_addr_t src_addr, int C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_32bit_C_logical_shift", "void", "local_addr_t dst_addr, local_addr_t src_addr, unsigned int C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_4N_int8_to_fp32", "void", "local_addr_t dst_addr, local_addr_t src_addr, local_addr_t work_addr, const dim4 *shape, bool is_signed, bool is_aligned_layout"),
    ("okk_bdc_int8_to_fp32", "void", "local_addr_t dst_addr, local_addr_t src_addr, local_addr_t work_addr, const dim4 *shape, bool is_signed, bool is_aligned_layout"),
    ("okk_bdc_bias", "void", "local_addr_t dst_addr, local_addr_t src_addr, local_addr_t bias_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_scale", "void", "local_addr_t dst_addr, local_addr_t src_addr, local_addr_t scale_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_scale_bias", "void", "local_addr_t dst_addr, local_addr_t src_addr, local_addr_t scale_addr, local_addr_t bias_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_conv2d", "void", "local_addr_t output_addr, local_addr_t input_addr, local_addr_t weight_addr, local_addr_t bias_addr, const dim4 *input_shape, int output_c, int kernel_h, int kernel_w, const dim4 *input_stride, const dim4 *kernel_stride, bool using_bias, bool result_add, const Padding *padding, const dim2 *stride, const dim2 *dilation"),
    ("okk_bdc_depthwise2d", "void", "local_addr_t output_addr, local_addr_t input_addr, local_addr_t weight_addr, local_addr_t bias_addr, const dim4 *input_shape, int kernel_h, int kernel_w, bool using_bias, const Padding *padding, const dim2 *stride, const dim2 *dilation"),
    ("okk_bdc_avg_pool2d", "void", "local_addr_t output_addr, local_addr_t input_addr, const dim4 *input_shape, int kernel_h, int kernel_w, const Padding *padding, const dim2 *stride"),
    ("okk_bdc_max_pool2d", "void", "local_addr_t output_addr, local_addr_t input_addr, const dim4 *input_shape, int kernel_h, int kernel_w, const Padding *padding, const dim2 *stride"),
    ("okk_bdc_matmul", "void", "local_addr_t output_addr, local_addr_t left_addr, local_addr_t right_addr, local_addr_t bias_addr, int left_rows, int left_cols, int right_cols, int left_cols_per_channel, int right_cols_per_channel, bool using_bias, bool result_add"),
    ("okk_bdc_greater_select", "void", "local_addr_t dst_addr, const fp32_or_addr_t *src0, const fp32_or_addr_t *src1, const x32_or_addr_t *select0, const x32_or_addr_t *select1, const dim4 *shape"),
    ("okk_bdc_equal_select", "void", "local_addr_t dst_addr, const fp32_or_addr_t *src0, const fp32_or_addr_t *src1, const x32_or_addr_t *select0, const x32_or_addr_t *select1, const dim4 *shape"),
    ("okk_bdc_fixed_point_packed_add", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride, op_type_t op_type, int rshift"),
    ("okk_bdc_fixed_point_packed_add_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, int C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride, op_type_t op_type, int rshift"),
    ("okk_bdc_fixed_point_packed_sub", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride, op_type_t op_type, int rshift"),
    ("okk_bdc_fixed_point_packed_sub_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, int C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride, op_type_t op_type, int rshift"),
    ("okk_bdc_fixed_point_packed_C_sub", "void", "local_addr_t dst_addr, local_addr_t src_addr, int C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride, op_type_t op_type, int rshift"),
    ("okk_bdc_fixed_point_packed_mul", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride, op_type_t op_type, int rshift"),
    ("okk_bdc_fixed_point_packed_mul_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, int C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride, op_type_t op_type, int rshift"),
    ("okk_bdc_fixed_point_packed_mac", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride, bool is_origin_dst_signed, op_type_t op_type, int lshift, int rshift"),
    ("okk_bdc_fixed_point_packed_mac_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, int C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride, bool is_origin_dst_signed, op_type_t op_type, int lshift, int rshift"),
    ("okk_bdc_fixed_point_packed_max", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride, op_type_t op_type"),
    ("okk_bdc_fixed_point_packed_max_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, int C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride, op_type_t op_type"),
    ("okk_bdc_fixed_point_packed_min", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride, op_type_t op_type"),
    ("okk_bdc_fixed_point_packed_min_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, int C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride, op_type_t op_type"),
    ("okk_bdc_fixed_point_packed_16bit_arithmetic_shift", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_fixed_point_packed_16bit_logical_shift", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride"),
    ("okk_bdc_fixed_point_packed_16bit_arithmetic_shift_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, short C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_fixed_point_packed_16bit_logical_shift_C", "void", "local_addr_t dst_addr, local_addr_t src_addr, short C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_fixed_point_packed_16bit_C_arithmetic_shift", "void", "local_addr_t dst_addr, local_addr_t src_addr, short C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_fixed_point_packed_16bit_C_logical_shift", "void", "local_addr_t dst_addr, local_addr_t src_addr, unsigned short C, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_fixed_point_packed_16bit_split_high_8bit", "void", "local_addr_t dst_addr, local_addr_t src_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride"),
    ("okk_bdc_fixed_point_packed_16bit_split_low_8bit", "void", "local_addr_t dst_addr, local_addr_t src_addr, local_addr_t work_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src_stride, const dim4 *work_stride"),
    ("okk_bdc_fixed_point_packed_16bit_mul_8bit", "void", "local_addr_t dst_addr, local_addr_t src0_high_addr, local_addr_t src0_low_addr, local_addr_t src1_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_high_stride, const dim4 *src0_low_stride, const dim4 *src1_stride, mul_type_t mul_type, int rshift"),
    ("okk_bdc_fixed_point_packed_s16_mul_u8_to_s16", "void", "local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, local_addr_t work_addr, local_addr_t work_high_addr, local_addr_t work_low_addr, const dim4 *shape, const dim4 *dst_stride, const dim4 *src0_stride, const dim4 *src1_stride, const dim4 *work_stride, const dim4 *work_high_stride, const dim4 *work_low_stride, int rshift"),
]

# The functions the shim forwards to Python; a function's index here is its id on both sides.
FORWARDED: list[tuple[str, str, str]] = [f for f in FUNCTIONS if f[0] not in C_ONLY]

# op_type_t / mul_type_t enumerators with their OP_TYPE / MUL_TYPE macro arguments (okk.h).
OP_TYPES: list[tuple[str, tuple[int, int, int, int, int]]] = [
    ("S8_OP_S8_TO_S8", (1, 1, 1, 1, 1)), ("S8_OP_S8_TO_S16", (1, 1, 1, 0, 1)),
    ("S8_OP_U8_TO_S8", (1, 1, 0, 1, 1)), ("S8_OP_U8_TO_S16", (1, 1, 0, 0, 1)),
    ("U8_OP_S8_TO_S8", (1, 0, 1, 1, 1)), ("U8_OP_S8_TO_S16", (1, 0, 1, 0, 1)),
    ("U8_OP_U8_TO_S8", (1, 0, 0, 1, 1)), ("U8_OP_U8_TO_S16", (1, 0, 0, 0, 1)),
    ("U8_OP_U8_TO_U8", (1, 0, 0, 1, 0)), ("U8_OP_U8_TO_U16", (1, 0, 0, 0, 0)),
    ("S16_OP_S16_TO_S8", (0, 1, 1, 1, 1)), ("S16_OP_S16_TO_S16", (0, 1, 1, 0, 1)),
    ("S16_OP_U16_TO_S8", (0, 1, 0, 1, 1)), ("S16_OP_U16_TO_S16", (0, 1, 0, 0, 1)),
    ("U16_OP_S16_TO_S8", (0, 0, 1, 1, 1)), ("U16_OP_S16_TO_S16", (0, 0, 1, 0, 1)),
    ("U16_OP_U16_TO_S8", (0, 0, 0, 1, 1)), ("U16_OP_U16_TO_S16", (0, 0, 0, 0, 1)),
    ("U16_OP_U16_TO_U8", (0, 0, 0, 1, 0)), ("U16_OP_U16_TO_U16", (0, 0, 0, 0, 0)),
]
MUL_TYPES: list[tuple[str, tuple[int, int, int]]] = [
    ("S16_MUL_S8_TO_S16", (1, 1, 1)), ("U16_MUL_S8_TO_S16", (0, 1, 1)),
    ("U16_MUL_U8_TO_U16", (0, 0, 0)), ("S16_MUL_U8_TO_S16", (1, 0, 1)),
]


def is_instruction(name: str) -> bool:
    """Only instructions read memory, so only they first mark what the kernel stored through the pointers a
    getter returned (pointers.py); getters must not (one pointer per element is common, each settle copies)."""
    return name.startswith(("okk_bdc_", "okk_gdma_"))


def arguments(args: str) -> list[tuple[str, str]]:
    """'const dim4 *shape, int n' -> [('const dim4 *', 'shape'), ('int', 'n')]."""
    out = []
    for a in filter(None, (s.strip() for s in args.split(","))):
        ctype, name = a.rsplit(None, 1)
        while name.startswith("*"):
            ctype, name = ctype + " *", name[1:]
        out.append((ctype.replace(" *", " *").strip(), name))
    return out
