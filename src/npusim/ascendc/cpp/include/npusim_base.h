// npusim's Ascend C CPU headers, part 1: keywords, scalar types, the call into the simulator.
// Deliberately no <cmath>, <math.h>, <cstdlib>: a kernel may be named sqrt, exp or abs (extern "C").
#pragma once
#include <cstdint>
#include <cstddef>
#include <cstdio>
#include <cstdarg>
#include <cstring>
#include <type_traits>
#include <utility>

#define __aicore__
#define __global__
#define __gm__
#define __ubuf__
#define __inout_pipe__(x)
#define __in_pipe__(x)
#define __out_pipe__(x)
#define GM_ADDR __gm__ uint8_t*

// The call site of every API: g++'s __builtin_FILE/LINE as default arguments give the kernel's .cpp line.
#define NPUSIM_LOC const char* npusim_file = __builtin_FILE(), int npusim_line = __builtin_LINE()
#define NPUSIM_HERE npusim_file, npusim_line

typedef _Float16 half;
typedef _Float16 float16_t;
typedef float float32_t;

// bfloat16_t: storage + round-to-nearest-even conversions (g++ 12 has no bf16 arithmetic).
struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    bfloat16_t(float f) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u) { bits = (uint16_t)((u >> 16) | 0x40); return; }
        u += 0x7fffu + ((u >> 16) & 1u);
        bits = (uint16_t)(u >> 16);
    }
    operator float() const { uint32_t u = (uint32_t)bits << 16; float f; std::memcpy(&f, &u, 4); return f; }
};

namespace npusim {
typedef int64_t (*fn_t)(const int64_t* args, int32_t n, const char* file, int32_t line);
struct Abort {};  // thrown after a callback reported an error; caught by the kernel entry

template <typename T> struct identity { typedef T type; };
template <typename T> using nd = typename identity<T>::type;   // a parameter that takes no part in deduction

template <typename T> struct dtype_code;
template <> struct dtype_code<half> { static constexpr int value = 0; };
template <> struct dtype_code<float> { static constexpr int value = 1; };
template <> struct dtype_code<bfloat16_t> { static constexpr int value = 2; };
template <> struct dtype_code<int8_t> { static constexpr int value = 3; };
template <> struct dtype_code<uint8_t> { static constexpr int value = 4; };
template <> struct dtype_code<int16_t> { static constexpr int value = 5; };
template <> struct dtype_code<uint16_t> { static constexpr int value = 6; };
template <> struct dtype_code<int32_t> { static constexpr int value = 7; };
template <> struct dtype_code<uint32_t> { static constexpr int value = 8; };
template <> struct dtype_code<int64_t> { static constexpr int value = 9; };
template <> struct dtype_code<bool> { static constexpr int value = 10; };

// A scalar of type T as the bits of T (what crosses to Python, with T's dtype code).
template <typename T> inline int64_t bits_of(const T& v) {
    static_assert(sizeof(T) <= 8, "scalar wider than 8 bytes");
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof(T));
    return (int64_t)u;
}
template <typename T> inline T from_bits(int64_t b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}

// Packed arguments of one call.
struct Args {
    int64_t v[40];
    int32_t n = 0;
};
template <typename X>
inline typename std::enable_if<std::is_integral<X>::value || std::is_enum<X>::value>::type put(Args& a, const X& x) {
    a.v[a.n++] = (int64_t)x;
}
template <typename X> inline void put(Args& a, X* p) { a.v[a.n++] = (int64_t)(intptr_t)p; }
}  // namespace npusim
