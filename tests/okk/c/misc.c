/* npusim test kernels for the C route's plumbing: errors, asserts, logs, pointers, sections. */
#include "okk.h"
#include "bm_atomic.h"       /* npusim's empty stand-ins: contest kernels include them */
#include "bmlib_runtime.h"
#include <string.h>
typedef struct {
    unsigned long long addr;
    int n;
    float value;
} __attribute__((packed)) param_t;

void bad_call(const void *args) {
    (void)args;
    okk_initialize();
    dim4 shape = {1, 64, 1, 32};
    okk_bdc_32bit_set_C(0, (x32){.fp32 = 1.0f}, &shape, NULL);
    okk_bdc_exp(4, 0, 8192, &shape);          /* dst not 128-byte aligned: ConstraintError */
    okk_bdc_32bit_set_C(0, (x32){.fp32 = 2.0f}, &shape, NULL);   /* never reached */
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(bad_call);

void failing_assert(const void *args) {
    const param_t *p = (const param_t *)args;
    okk_initialize();
    OKKERNEL_ASSERT(p->n < 3);
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(failing_assert);

void logging(const void *args) {
    const param_t *p = (const param_t *)args;
    OKKERNEL_LOG("n=%d npu=%d lmem=%u\n", p->n, NPU_NUM, LOCAL_MEM_SIZE);
    if (p->n == 0)
        okk_dump_registered_kernel_funcs();
}
OKKERNEL_FUNC_REGISTER(logging);

/* Fill n floats through the global-memory pointer, then copy them S2L and back L2S (+ n floats). */
void through_pointer(const void *args) {
    const param_t *p = (const param_t *)args;
    float *g = (float *)okk_global_mem_addr(p->addr);
    for (int i = 0; i < p->n; i++)
        g[i] = p->value * i;
    okk_initialize();
    okk_gdma_32bit_cpy_S2L(0, p->addr, &(dim4){1, 1, 1, p->n}, NULL, NULL);
    okk_gdma_32bit_cpy_L2S(p->addr + 4 * p->n, 0, &(dim4){1, 1, 1, p->n}, NULL, NULL);
    okk_poll();
    unsigned char *d = okk_dtcm_addr(okk_dtcm_start_addr());
    memset(d, 7, okk_dtcm_size());
    unsigned char *l = okk_local_mem_addr(1, 128);
    l[0] = 42;
}
OKKERNEL_FUNC_REGISTER(through_pointer);

/* Three sections: each set_C of a different size, so the section cycles differ. */
void sections(const void *args) {
    (void)args;
    for (int s = 1; s <= 3; s++) {
        okk_initialize();
        okk_bdc_32bit_set_C(0, (x32){.u32 = 0}, &(dim4){s, 64, 1, 32}, NULL);
        okk_poll();
    }
}
OKKERNEL_FUNC_REGISTER(sections);

void plain_entry(const void *args) { (void)args; okk_initialize(); okk_poll(); }

/* No okk_initialize: the run's own section counts the cycles up to okk_poll. */
void no_initialize(const void *args) {
    (void)args;
    okk_bdc_32bit_set_C(0, (x32){.u32 = 0}, &(dim4){2, 64, 1, 32}, NULL);
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(no_initialize);

/* One pointer per element, no okk call in between: the first window covers them all. */
void pointer_per_element(const void *args) {
    const param_t *p = (const param_t *)args;
    for (int i = 0; i < p->n; i++)
        *(float *)okk_global_mem_addr(p->addr + 4 * i) = p->value;
    okk_initialize();
    okk_gdma_32bit_cpy_S2S(p->addr + 4 * p->n, p->addr, &(dim4){1, 1, 1, p->n}, NULL, NULL);
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(pointer_per_element);

/* p->n set_C commands in one parallel region, then three outside it (flush_tail alone): past 30000 the
   C-model flushes at okk_parallel_end and its dump starts a new section there. */
static void three_sets(void) {
    dim4 shape = {1, 64, 1, 32};
    for (int i = 0; i < 3; i++) okk_bdc_32bit_set_C(0, (x32){.fp32 = 3.0f}, &shape, NULL);
}

void flush_split(const void *args) {
    const param_t *p = (const param_t *)args;
    dim4 shape = {1, 64, 1, 32};
    okk_initialize();
    okk_parallel_start();
    for (int i = 0; i < p->n; i++) okk_bdc_32bit_set_C(0, (x32){.fp32 = 1.0f}, &shape, NULL);
    okk_parallel_end();
    three_sets();
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(flush_split);

void flush_tail(const void *args) {
    (void)args;
    okk_initialize();
    three_sets();
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(flush_tail);
