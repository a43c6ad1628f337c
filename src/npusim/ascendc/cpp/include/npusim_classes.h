// npusim's Ascend C CPU headers, part 2: the classes. Every object is a handle (an index into the running
// block's table of Python objects); every method is one callback of npusim_gen_types.h's NpusimApi.
#pragma once
#include "npusim_gen_types.h"
#include "npusim_vendor_tiling.h"

enum event_t : int32_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };

namespace npusim {
template <typename... X> inline int64_t call(fn_t f, const char* file, int line, const X&... x) {
    Args a;
    (put(a, x), ...);
    int64_t r = f(a.v, a.n, file, line);
    if (npusim_api.failed) throw Abort{};
    return r;
}
// A call whose argument count depends on template values (BroadCast's shapes): packed by the caller.
inline int64_t call_args(fn_t f, const char* file, int line, Args& a) {
    int64_t r = f(a.v, a.n, file, line);
    if (npusim_api.failed) throw Abort{};
    return r;
}
template <typename T> struct is_tensor : std::false_type {};
}  // namespace npusim
#define NPUSIM_CALL(name, ...) ::npusim::call(npusim_api.name, npusim_file, npusim_line, __VA_ARGS__)
#define NPUSIM_CALL0(name) ::npusim::call(npusim_api.name, npusim_file, npusim_line)

namespace AscendC {
using TEventID = int8_t;
constexpr int32_t ONE_BLK_SIZE = 32;
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr int32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr int32_t DEFAULT_BLK_STRIDE = 1;
constexpr int32_t BLOCK_CUBE = 16;

template <typename T> class LocalTensor;
template <typename T> class GlobalTensor;
// dst = src0 op src1 (the vendor's operator overloads): an expression that assignment turns into the API
// call over dst.GetSize() elements (npusim_kernel_extras.h).
enum class ExprOp : int32_t { ADD, SUB, MUL, DIV, OR, AND };
template <typename T, ExprOp op> struct TensorExpr {
    int64_t a, b;
};
// Found by argument-dependent lookup from npusim::call.
template <typename T> inline void put(npusim::Args& a, const LocalTensor<T>& t);
template <typename T> inline void put(npusim::Args& a, const GlobalTensor<T>& t);

// LocalTensor(i): a scalar element (GetValue when read, SetValue when assigned).
template <typename T> struct LocalRef {
    int64_t h;
    uint32_t i;
    operator T() const;
    LocalRef& operator=(const T& v);
};

template <typename T> class LocalTensor {
public:
    using PrimType = T;
    int64_t h = 0;
    __aicore__ inline LocalTensor() {}
    explicit LocalTensor(int64_t handle) : h(handle) {}
    LocalTensor operator[](const uint32_t offset) const {
        const char* npusim_file = "";
        int npusim_line = 0;
        return LocalTensor(NPUSIM_CALL(LocalTensor_Index, h, offset));
    }
    LocalRef<T> operator()(const uint32_t index) const { return LocalRef<T>{h, index}; }
    template <ExprOp op> LocalTensor& operator=(const TensorExpr<T, op>& e);
    LocalTensor(const LocalTensor&) = default;
    LocalTensor& operator=(const LocalTensor&) = default;
    uint32_t GetSize(NPUSIM_LOC) const { return (uint32_t)NPUSIM_CALL(LocalTensor_GetSize, h); }
    uint32_t GetLength(NPUSIM_LOC) const { return GetSize(NPUSIM_HERE) * (uint32_t)sizeof(T); }
    T GetValue(const uint32_t index, NPUSIM_LOC) const {
        return npusim::from_bits<T>(NPUSIM_CALL(LocalTensor_GetValue, h, index));
    }
    void SetValue(const uint32_t index, const npusim::nd<T>& value, NPUSIM_LOC) const {
        NPUSIM_CALL(LocalTensor_SetValue, h, index, npusim::bits_of<T>(value));
    }
    template <typename U> LocalTensor<U> ReinterpretCast(NPUSIM_LOC) const {
        return LocalTensor<U>(NPUSIM_CALL(LocalTensor_ReinterpretCast, h, npusim::dtype_code<U>::value));
    }
    uint64_t GetPhyAddr(NPUSIM_LOC) const { return (uint64_t)NPUSIM_CALL(LocalTensor_GetPhyAddr, h); }
    TPosition GetPosition(NPUSIM_LOC) const { return (TPosition)NPUSIM_CALL(LocalTensor_GetPosition, h); }
};
#define NPUSIM_TENSOR_OP(sym, op) \
    template <typename T> inline TensorExpr<T, ExprOp::op> operator sym(const LocalTensor<T>& a, const LocalTensor<T>& b) \
    { return TensorExpr<T, ExprOp::op>{a.h, b.h}; }
NPUSIM_TENSOR_OP(+, ADD)
NPUSIM_TENSOR_OP(-, SUB)
NPUSIM_TENSOR_OP(*, MUL)
NPUSIM_TENSOR_OP(/, DIV)
NPUSIM_TENSOR_OP(|, OR)
NPUSIM_TENSOR_OP(&, AND)
#undef NPUSIM_TENSOR_OP
template <typename T> LocalRef<T>::operator T() const { return LocalTensor<T>(h).GetValue(i); }
template <typename T> LocalRef<T>& LocalRef<T>::operator=(const T& v) { LocalTensor<T>(h).SetValue(i, v); return *this; }

template <typename T> class GlobalTensor {
public:
    using PrimType = T;
    int64_t h = 0;
    __aicore__ inline GlobalTensor() {}
    explicit GlobalTensor(int64_t handle) : h(handle) {}
    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize, NPUSIM_LOC) {
        h = NPUSIM_CALL(GlobalTensor_SetGlobalBuffer, npusim::dtype_code<T>::value, buffer, 1, bufferSize);
    }
    void SetGlobalBuffer(__gm__ T* buffer, NPUSIM_LOC) {
        h = NPUSIM_CALL(GlobalTensor_SetGlobalBuffer, npusim::dtype_code<T>::value, buffer, 0, 0);
    }
    GlobalTensor operator[](const uint64_t offset) const {
        const char* npusim_file = "";
        int npusim_line = 0;
        return GlobalTensor(NPUSIM_CALL(GlobalTensor_Index, h, offset));
    }
    uint64_t GetSize(NPUSIM_LOC) const { return (uint64_t)NPUSIM_CALL(GlobalTensor_GetSize, h); }
    T GetValue(const uint64_t offset, NPUSIM_LOC) const {
        return npusim::from_bits<T>(NPUSIM_CALL(GlobalTensor_GetValue, h, offset));
    }
    void SetValue(const uint64_t offset, const npusim::nd<T>& value, NPUSIM_LOC) const {
        NPUSIM_CALL(GlobalTensor_SetValue, h, offset, npusim::bits_of<T>(value));
    }
    __gm__ T* GetPhyAddr(NPUSIM_LOC) const { return (__gm__ T*)(intptr_t)NPUSIM_CALL(GlobalTensor_GetPhyAddr, h, 0); }
    __gm__ T* GetPhyAddr(const uint64_t offset, NPUSIM_LOC) const {
        return (__gm__ T*)(intptr_t)NPUSIM_CALL(GlobalTensor_GetPhyAddr, h, offset);
    }
};

template <typename T> inline void put(npusim::Args& a, const LocalTensor<T>& t) { a.v[a.n++] = t.h; }
template <typename T> inline void put(npusim::Args& a, const GlobalTensor<T>& t) { a.v[a.n++] = t.h; }

// TQueBind<src, dst, depth>: filled by src's producer pipe, drained by dst's consumer (VECIN -> VECOUT: MTE2
// then MTE3); TQue<pos, depth> is TQueBind<pos, pos, depth>, as in the vendor's headers.
template <TPosition src, TPosition dst, int32_t depth = 1, auto... rest> class TQueBind {
public:
    int64_t h = 0;
    __aicore__ inline TQueBind() {}
    int64_t handle(NPUSIM_LOC) {
        if (!h) h = NPUSIM_CALL(TQue_New, src, depth, dst);
        return h;
    }
    template <typename T> LocalTensor<T> AllocTensor(NPUSIM_LOC) {
        return LocalTensor<T>(NPUSIM_CALL(TQue_AllocTensor, handle(NPUSIM_HERE), npusim::dtype_code<T>::value));
    }
    template <typename T> bool EnQue(const LocalTensor<T>& t, NPUSIM_LOC) {
        return NPUSIM_CALL(TQue_EnQue, handle(NPUSIM_HERE), t.h) != 0;
    }
    template <typename T> LocalTensor<T> DeQue(NPUSIM_LOC) {
        return LocalTensor<T>(NPUSIM_CALL(TQue_DeQue, handle(NPUSIM_HERE), npusim::dtype_code<T>::value));
    }
    template <typename T> void FreeTensor(LocalTensor<T>& t, NPUSIM_LOC) {
        NPUSIM_CALL(TQue_FreeTensor, handle(NPUSIM_HERE), t.h);
    }
    bool VacantInQue(NPUSIM_LOC) { return NPUSIM_CALL(TQue_VacantInQue, handle(NPUSIM_HERE)) != 0; }
    bool HasTensorInQue(NPUSIM_LOC) { return NPUSIM_CALL(TQue_HasTensorInQue, handle(NPUSIM_HERE)) != 0; }
};
template <TPosition pos, int32_t depth = 1, auto... rest> class TQue : public TQueBind<pos, pos, depth, rest...> {};

template <TPosition pos = TPosition::VECCALC> class TBuf {
public:
    int64_t h = 0;
    __aicore__ inline TBuf() {}
    int64_t handle(NPUSIM_LOC) {
        if (!h) h = NPUSIM_CALL(TBuf_New, pos);
        return h;
    }
    template <typename T> LocalTensor<T> Get(NPUSIM_LOC) {
        return LocalTensor<T>(NPUSIM_CALL(TBuf_Get, handle(NPUSIM_HERE), npusim::dtype_code<T>::value, -1));
    }
    template <typename T> LocalTensor<T> Get(uint32_t len, NPUSIM_LOC) {
        return LocalTensor<T>(NPUSIM_CALL(TBuf_Get, handle(NPUSIM_HERE), npusim::dtype_code<T>::value, len));
    }
    template <typename T> LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset, NPUSIM_LOC) {
        return LocalTensor<T>(NPUSIM_CALL(TBuf_GetWithOffset, handle(NPUSIM_HERE), npusim::dtype_code<T>::value,
                                          size, bufOffset));
    }
    // TBuf::FreeTensor exists for symmetry with TQue and does nothing (a TBuf has no queue state).
    template <typename T> void FreeTensor(LocalTensor<T>&) {}
};

// DataCopyPadExtParams<T>: the padding value is a T (DataCopyPadParams, generated, has a uint64_t).
template <typename T> struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = 0;
    __aicore__ DataCopyPadExtParams() {}
    __aicore__ DataCopyPadExtParams(const bool isPadIn, const uint8_t leftPadIn, const uint8_t rightPadIn, T padValueIn)
        : isPad(isPadIn), leftPadding(leftPadIn), rightPadding(rightPadIn), paddingValue(padValueIn) {}
};

// TQueSync<src, dst>: SetFlag/WaitFlag of the HardEvent src_dst, named by its pipes.
template <pipe_t src, pipe_t dst> class TQueSync {
public:
    __aicore__ inline void SetFlag(TEventID id, NPUSIM_LOC) { NPUSIM_CALL(TQueSync_SetFlag, src, dst, id); }
    __aicore__ inline void WaitFlag(TEventID id, NPUSIM_LOC) { NPUSIM_CALL(TQueSync_WaitFlag, src, dst, id); }
};

class TPipe;
inline TPipe*& npusim_current_pipe() { static thread_local TPipe* p = nullptr; return p; }

class TPipe {
public:
    int64_t h = 0;
    // GetTPipePtr() returns the TPipe constructed last (the vendor's global g_tPipePtr).
    __aicore__ inline TPipe() { npusim_current_pipe() = this; }
    ~TPipe() { if (npusim_current_pipe() == this) npusim_current_pipe() = nullptr; }
    int64_t handle(NPUSIM_LOC) {
        if (!h) h = NPUSIM_CALL0(TPipe_New);
        return h;
    }
    template <TPosition src, TPosition dst, int32_t depth, auto... rest>
    bool InitBuffer(TQueBind<src, dst, depth, rest...>& que, uint8_t num, uint32_t len, NPUSIM_LOC) {
        return NPUSIM_CALL(TPipe_InitBuffer, handle(NPUSIM_HERE), que.handle(NPUSIM_HERE), num, len) != 0;
    }
    template <TPosition pos> bool InitBuffer(TBuf<pos>& buf, uint32_t len, NPUSIM_LOC) {
        return NPUSIM_CALL(TPipe_InitBuffer, handle(NPUSIM_HERE), buf.handle(NPUSIM_HERE), -1, len) != 0;
    }
    void Reset(NPUSIM_LOC) { NPUSIM_CALL(TPipe_Reset, handle(NPUSIM_HERE)); }
    TEventID FetchEventID(HardEvent evt, NPUSIM_LOC) {
        return (TEventID)NPUSIM_CALL(TPipe_FetchEventID, handle(NPUSIM_HERE), evt);
    }
    template <HardEvent evt> TEventID FetchEventID(NPUSIM_LOC) { return FetchEventID(evt, NPUSIM_HERE); }
    template <HardEvent evt> TEventID AllocEventID(NPUSIM_LOC) {
        return (TEventID)NPUSIM_CALL(TPipe_AllocEventID, handle(NPUSIM_HERE), evt);
    }
    template <HardEvent evt> void ReleaseEventID(TEventID id, NPUSIM_LOC) {
        NPUSIM_CALL(TPipe_ReleaseEventID, handle(NPUSIM_HERE), evt, id);
    }
    void Destroy() {}
    void Init() {}
};

__aicore__ inline TPipe* GetTPipePtr() { return npusim_current_pipe(); }
}  // namespace AscendC

namespace npusim {
template <typename T> struct is_tensor<AscendC::LocalTensor<T>> : std::true_type {};
template <typename T> struct is_tensor<AscendC::GlobalTensor<T>> : std::true_type {};
}  // namespace npusim
