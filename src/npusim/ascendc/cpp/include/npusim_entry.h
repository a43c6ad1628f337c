// Included after the user's kernel by the generated wrapper: the table's storage and one C entry per
// extern "C" __global__ kernel, which unpacks launch's int64 arguments by the kernel's own parameter types.
#pragma once
#include "kernel_operator.h"

namespace npusim {
template <typename A> inline A arg_from(int64_t v) {
    if constexpr (std::is_pointer<A>::value) {
        return reinterpret_cast<A>((intptr_t)v);
    } else if constexpr (std::is_integral<A>::value || std::is_enum<A>::value) {
        return (A)v;
    } else if constexpr (std::is_floating_point<A>::value) {
        double d;
        std::memcpy(&d, &v, 8);
        return (A)d;
    } else {
        return *reinterpret_cast<const A*>((intptr_t)v);   // a struct passed by value: v points at its bytes
    }
}
template <typename A> constexpr char kind() {
    return std::is_pointer<A>::value ? 'p' : std::is_integral<A>::value || std::is_enum<A>::value ? 'i'
         : std::is_floating_point<A>::value ? 'f' : 's';
}
template <typename... A, size_t... I> inline void invoke(void (*f)(A...), const int64_t* a, std::index_sequence<I...>) {
    f(arg_from<typename std::decay<A>::type>(a[I])...);
}
template <typename... A> inline int run(void (*f)(A...), const int64_t* a) {
    try {
        invoke(f, a, std::index_sequence_for<A...>{});
    } catch (Abort&) {
        return 1;               // a callback reported an error: Python re-raises it
    } catch (...) {
        return 2;               // the kernel's own C++ exception
    }
    return 0;
}
template <typename... A> inline const char* signature(void (*)(A...)) {
    static const char s[] = {kind<typename std::decay<A>::type>()..., '\0'};
    return s;
}
}  // namespace npusim

namespace npusim {
// sizeof the first registered tiling struct (0 when the file registers none); kernel.py checks it against
// the field list it parsed from the same header.
template <typename R, typename = void> struct reg_size { static constexpr uint64_t value = 0; };
template <typename R> struct reg_size<R, std::void_t<typename R::type>> {
    static constexpr uint64_t value = sizeof(typename R::type);
};
}  // namespace npusim

extern "C" {
uint64_t npusim_tiling_size() {
    return npusim::reg_size<::optiling::NpusimReg<::optiling::npusim_reg_base + 1>>::value;
}
NpusimApi npusim_api;
const char* npusim_api_hash() { return NPUSIM_API_HASH; }
}
#define NPUSIM_ENTRY(name) \
    extern "C" int npusim_run__##name(const int64_t* a) { return npusim::run(&name, a); } \
    extern "C" const char* npusim_sig__##name() { return npusim::signature(&name); }
