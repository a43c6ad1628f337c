"""SMYLEvideo GEN.2 constants (sources in docs/vppl.md)."""

FREQ_HZ = 50e6          # GEN.2 prototype clock, topscom.co.jp/SMYLEGEN2/performance.htm
REG_BITS = 512          # vector register width: inferred from i16[32] in every seed example (estimate)
DM_BYTES = 2 * 1024 * 1024   # data memory with the compiler's --EXM switch (compiler.html)
CORES = 8               # GEN.2 cores, topscom.co.jp/SMYLEGEN2/application.htm
SHIFT_MAX_BITS = 255    # shift_up / shift_down: "シフト量として許されるのは0~255ビットまで" (seed 003)
RECORD_INTS = 8         # get_record / set_record: "Integer変数が8個格納されたレコード" (seed 003)
DM_ALIGN = 32           # get_array: "取り扱うアドレスは32バイトアラインメントである必要があります" (seed 003)
MAX_VECTOR_ELEMENTS = 1 << 20   # npusim's limit on a vector's declared length (docs/vppl.md, "Argument rules")
MAX_LITERAL_DIGITS = 40         # npusim's limit on a number literal's digits (a 32-bit value needs at most 10)
