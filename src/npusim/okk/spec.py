"""BM1684 constants as OKKernel sees them (reference okkernel.md §1; every value is cited in docs/okk.md)."""

NPU_NUM = 64                          # okk_npu_num(): C-model getter returns 0x40
EU_NUM = 32                           # okk_eu_num(): fp32 lanes per NPU, 32 x 4 B = the 128-byte alignment
LOCAL_MEM_SIZE = 0x80000              # okk_local_mem_size_per_npu(): 512 KiB per NPU
LOCAL_MEM_BANKS = 8                   # okk_local_mem_bank_per_npu()
LOCAL_MEM_START = 0x08000000          # okk_local_mem_start_addr(): physical base ORed into local addresses
GLOBAL_MEM_START = 0x1_0000_0000      # okk_global_mem_start_addr()
GLOBAL_MEM_SIZE = 4 << 30             # the C-model allocates 4 GiB ("global mem size = 4294967296")
L2_SRAM_START = 0x100A2000            # okk_l2_sram_start_addr()
L2_SRAM_SIZE = 0x25E000               # okk_l2_sram_size()
DTCM_START = 0x02020000               # okk_dtcm_start_addr()
DTCM_SIZE = 0x5F400                   # okk_dtcm_size()
LOOKUP_TABLE_START = 0x323C00         # okk_lookup_table_start_addr()
LOOKUP_TABLE_SIZE = 0xDC400           # okk_lookup_table_size()
BDC_FREQ_HZ = 550e6                   # libsophon bmlib_profile.cpp BM1684_TPU_FREQ_MHZ
GDMA_FREQ_HZ = 575e6                  # libsophon bmlib_profile.cpp BM1684_GDMA_FREQ_MHZ

MAX_NHW = 65535                       # seed remarks: n, h, w in [1, 65535]
MAX_C = 4095                          # seed remarks: c in [1, 4095]
MAX_NUM_SERIES = 64                   # seed remarks: num_series in [1, 64]
DEFAULT_NUM_SERIES = 32               # okk_bdc_exp == okk_bdc_exp_tunable(num_series=32)
EXP_RANGE = (-103.0, 88.0)            # seed remarks: exp/sigmoid/tanh inputs in [-103, 88]


def info() -> dict[str, dict[str, object]]:
    return {"BM1684": {
        "okk_npu_num": NPU_NUM, "okk_eu_num": EU_NUM,
        "okk_local_mem_size_per_npu": hex(LOCAL_MEM_SIZE), "okk_local_mem_bank_per_npu": LOCAL_MEM_BANKS,
        "okk_local_mem_start_addr": hex(LOCAL_MEM_START), "okk_global_mem_start_addr": hex(GLOBAL_MEM_START),
        "global memory (C-model)": "4 GiB", "okk_l2_sram_start_addr": hex(L2_SRAM_START),
        "okk_l2_sram_size": hex(L2_SRAM_SIZE), "BDC clock": "550 MHz", "GDMA clock": "575 MHz",
    }}
