// npusim's Ascend C CPU headers, part 4: printf, ASSERT, tiling data and the framework macros.
#pragma once
#include "npusim_gen_api.h"

namespace npusim {
inline void print(const char* text, NPUSIM_LOC) { NPUSIM_CALL(Print, text); }
inline void assert_failed(const char* expr, const char* npusim_file, int npusim_line) {
    NPUSIM_CALL(Assert, expr, 0);
}
inline void read_tiling(void* dst, size_t n, const void* src, const char* npusim_file, int npusim_line) {
    if (src == nullptr) {
        NPUSIM_CALL(Assert, "GET_TILING_DATA: the kernel reads tiling data but launch got no tiling=", 1);
        return;
    }
    std::memcpy(dst, src, n);
}
}  // namespace npusim

namespace AscendC {
// AscendC::printf / PRINTF: formatted in C++, printed by Python (so pytest and the CLI capture it).
template <typename... A> __aicore__ inline void printf(const char* fmt, A... args) {
    char buf[4096];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    std::snprintf(buf, sizeof(buf), fmt, args...);
#pragma GCC diagnostic pop
    npusim::print(buf);
}
template <typename... A> __aicore__ inline void PRINTF(const char* fmt, A... args) { printf(fmt, args...); }
}  // namespace AscendC

namespace AscendC {
template <typename T> template <ExprOp op> LocalTensor<T>& LocalTensor<T>::operator=(const TensorExpr<T, op>& e) {
    const char* npusim_file = "";
    int npusim_line = 0;
    LocalTensor<T> a(e.a), b(e.b);
    int32_t n = (int32_t)GetSize(NPUSIM_HERE);
    if constexpr (op == ExprOp::ADD) Add(*this, a, b, n, NPUSIM_HERE);
    if constexpr (op == ExprOp::SUB) Sub(*this, a, b, n, NPUSIM_HERE);
    if constexpr (op == ExprOp::MUL) Mul(*this, a, b, n, NPUSIM_HERE);
    if constexpr (op == ExprOp::DIV) Div(*this, a, b, n, NPUSIM_HERE);
    if constexpr (op == ExprOp::OR) Or(*this, a, b, n, NPUSIM_HERE);
    if constexpr (op == ExprOp::AND) And(*this, a, b, n, NPUSIM_HERE);
    return *this;
}
}  // namespace AscendC

namespace AscendC {
// The op's own part of the workspace: npusim reserves no system workspace [A], so it starts at the argument.
__aicore__ inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) { return workspace; }
}  // namespace AscendC

// The block builtins are visible without AscendC:: in the vendor headers too.
using AscendC::GetBlockIdx;
using AscendC::GetBlockNum;
using AscendC::GetTPipePtr;       // global in the vendor's headers too (kernel_tpipe.h)
inline int64_t get_block_idx() { return npusim_api.block_idx; }
inline int64_t get_block_num() { return npusim_api.block_num; }

// ASSERT is an expression "+ 0 * check": a statement on its own, and, as in the device build where ASSERT is
// empty, it may follow an expression (cann-ops mse_loss.cpp: `this->tileNum = tileNum ASSERT(tileNum != 0);`).
namespace npusim {
inline int assert_check(bool ok, const char* expr, const char* npusim_file, int npusim_line) {
    if (!ok) assert_failed(expr, npusim_file, npusim_line);
    return 0;
}
}  // namespace npusim
#define ASSERT(expr) + 0 * ::npusim::assert_check(static_cast<bool>(expr), #expr, __FILE__, __LINE__)

// Tiling data (register/tilingdata_base.h spelling): a plain struct with natural alignment; launch packs a
// dict into it by the same field list (npusim.ascendc.cpp.tiling).
#define BEGIN_TILING_DATA_DEF(name) struct name {
#define TILING_DATA_FIELD_DEF(type, fname) type fname;
#define TILING_DATA_FIELD_DEF_ARR(type, count, fname) type fname[count];
#define TILING_DATA_FIELD_DEF_STRUCT(type, fname) type fname;
#define END_TILING_DATA_DEF }
// The k-th REGISTER_TILING_DATA_CLASS of the file is optiling::NpusimReg<npusim_reg_base + k>; GET_TILING_DATA
// reads the first (the op's own: `Heaviside`), a later one (`Heaviside_5`, a tiling key's struct) is read with
// GET_TILING_DATA_WITH_STRUCT, as in the vendor's build.
namespace optiling {
template <int N> struct NpusimReg;
constexpr int npusim_reg_base = __COUNTER__;
}  // namespace optiling
#define REGISTER_TILING_DATA_CLASS(op, cls) template <> struct NpusimReg<__COUNTER__> { using type = cls; };
using namespace optiling;
#define GET_TILING_DATA(var, tiling) \
    ::optiling::NpusimReg<::optiling::npusim_reg_base + 1>::type var; \
    ::npusim::read_tiling(&var, sizeof(var), (const void*)(tiling), __FILE__, __LINE__)
#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling) \
    type var; ::npusim::read_tiling(&var, sizeof(var), (const void*)(tiling), __FILE__, __LINE__)
#ifndef TILING_KEY_VAR
#define TILING_KEY_VAR (npusim_api.tiling_key)
#endif
#define TILING_KEY_IS(k) (TILING_KEY_VAR == (k))
#define KERNEL_TASK_TYPE_DEFAULT(x)
#define KERNEL_TASK_TYPE(key, type)
