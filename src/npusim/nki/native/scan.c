/* tensor_tensor_scan's recurrence in C, a CPython extension (npusim.nki.native_scan; numpy in
   isa_vector.py is the reference and the fallback).

   out[p][i] = op1(op0(x0[p][i], prev), x1[p][i]), prev = out[p][i - 1] (init[p] for i = 0); reverse0 /
   reverse1 swap an op's operands. Ops: 0 add, 1 subtract, 2 multiply, each one IEEE float32 operation
   rounded to nearest as numpy's float32 ufuncs do: built with -ffp-contract=off (no fused multiply-add)
   and refused where float expressions evaluate in a wider type. Subnormals, infinities and signed zeros
   follow IEEE 754 like numpy's loops (both run under the same MXCSR). NaN payloads are where C and
   numpy could differ (which operand's NaN an x86 instruction keeps depends on operand order), so a scan
   with a NaN in any result writes nothing and answers False: the caller runs numpy.

   Why an extension and not ctypes: the call takes the ndarrays themselves (no addresses to ask numpy
   for, no argument conversion, ~10 us a call less) and writes the result straight into the caller's
   output view (dst's SBUF rows), so no result array and no second copy.

   All inputs are read and the whole result is computed into scratch before the first byte of out is
   written, so out may overlap x0, x1 or init in any way, and a declined call leaves out as it was.

   Rows are independent chains of dependent operations, each row a short run of floats far from the
   next (SBUF partitions are ~200 KiB apart, so rows alias in the L1 cache). The kernel takes the rows
   BLOCK at a time: it copies the block's rows of both inputs to column-major scratch (each row read
   once, in order), runs the recurrence one column at a time over the block's rows (contiguous lanes: the
   compiler vectorises it with the same IEEE operations, lane by lane), keeps every block's results in
   scratch, and writes out only when no result is a NaN. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "float arithmetic must evaluate in float (FLT_EVAL_METHOD 0) to match numpy's float32 ufuncs"
#endif

#define BLOCK 16

#define OP_0(a, b) ((a) + (b))
#define OP_1(a, b) ((a) - (b))
#define OP_2(a, b) ((a) * (b))

/* Column i of the recurrence over the block's rows: cur[b] = op1(op0(cur[b], prev[b]), d[b]) (operands
   swapped by R0 / R1). cur holds data0's column on entry and the result on exit. */
#define COLUMN(O0, O1, R0, R1)                                                                          \
    for (long b = 0; b < BLOCK; b++) {                                                                  \
        float t = R0 ? OP_##O0(prev[b], cur[b]) : OP_##O0(cur[b], prev[b]);                             \
        cur[b] = R1 ? OP_##O1(d[b], t) : OP_##O1(t, d[b]);                                              \
    }

/* a, dcols: N columns of BLOCK floats (rows past the block's last hold copies of it, computed and
   dropped: whole columns vectorise); init: BLOCK floats. */
#define SCAN_KERNEL(O0, O1)                                                                              \
static void scan_##O0##_##O1(float *restrict a, const float *restrict dcols, const float *restrict init, \
                             long N, int rev0, int rev1)                                                \
{                                                                                                       \
    for (long i = 0; i < N; i++) {                                                                      \
        float *restrict cur = a + i * BLOCK;                                                            \
        const float *restrict prev = i ? a + (i - 1) * BLOCK : init;                                    \
        const float *restrict d = dcols + i * BLOCK;                                                    \
        if (!rev0 && !rev1) { COLUMN(O0, O1, 0, 0) }                                                    \
        else if (rev0 && !rev1) { COLUMN(O0, O1, 1, 0) }                                                \
        else if (!rev0) { COLUMN(O0, O1, 0, 1) }                                                        \
        else { COLUMN(O0, O1, 1, 1) }                                                                   \
    }                                                                                                   \
}

SCAN_KERNEL(0, 0) SCAN_KERNEL(0, 1) SCAN_KERNEL(0, 2)
SCAN_KERNEL(1, 0) SCAN_KERNEL(1, 1) SCAN_KERNEL(1, 2)
SCAN_KERNEL(2, 0) SCAN_KERNEL(2, 1) SCAN_KERNEL(2, 2)

typedef void (*scan_fn)(float *restrict, const float *restrict, const float *restrict, long, int, int);

static const scan_fn KERNELS[3][3] = {
    {scan_0_0, scan_0_1, scan_0_2},
    {scan_1_0, scan_1_1, scan_1_2},
    {scan_2_0, scan_2_1, scan_2_2},
};

/* Row b of the block into column-major scratch: z[i * BLOCK] = row[i] (elements step bytes apart). */
static void to_column(float *restrict z, const char *restrict row, npy_intp step, npy_intp n)
{
    if (step == 4) {
        const float *restrict x = (const float *)row;
        for (npy_intp i = 0; i < n; i++)
            z[i * BLOCK] = x[i];
    } else {
        for (npy_intp i = 0; i < n; i++)
            z[i * BLOCK] = *(const float *)(row + i * step);
    }
}

/* A float32 (native byte order) aligned array of 1 or 2 dimensions as rows: n0 rows s0 bytes apart, n1
   elements s1 bytes apart (a 0-d or 1-D array: one row). 0 when it is not one. */
typedef struct { char *p; npy_intp n0, n1, s0, s1; } rows;

static int as_rows(PyObject *o, rows *r, int max_nd)
{
    if (!PyArray_Check(o))
        return 0;
    PyArrayObject *a = (PyArrayObject *)o;
    PyArray_Descr *d = PyArray_DESCR(a);
    int nd = PyArray_NDIM(a);
    if (d->type_num != NPY_FLOAT || !PyArray_ISNOTSWAPPED(a) || nd > max_nd)
        return 0;
    const npy_intp *n = PyArray_DIMS(a), *s = PyArray_STRIDES(a);
    r->p = PyArray_BYTES(a);
    if (nd == 2) {
        r->n0 = n[0]; r->n1 = n[1]; r->s0 = s[0]; r->s1 = s[1];
    } else {
        r->n0 = 1; r->n1 = nd ? n[0] : 1; r->s0 = 0; r->s1 = nd ? s[0] : 0;
    }
    return (uintptr_t)r->p % 4 == 0 && r->s0 % 4 == 0 && r->s1 % 4 == 0;
}

static float at(const rows *r, npy_intp i, npy_intp j) { return *(const float *)(r->p + i * r->s0 + j * r->s1); }

/* Whether one of n float32 bit patterns is a NaN: |u| > 0x7f800000 exactly when 0x7f800000 - |u| wraps
   to a set top bit (integer lanes the compiler vectorises). */
static __attribute__((noinline)) int any_nan(const uint32_t *restrict u, npy_intp n)
{
    uint32_t wrap = 0;
    for (npy_intp k = 0; k < n; k++)
        wrap |= 0x7f800000u - (u[k] & 0x7fffffffu);
    return (int)(wrap >> 31);
}

/* Scratch kept between calls (the GIL is held throughout: one caller at a time). */
static float *scratch;
static size_t scratch_floats;

static float *scratch_for(size_t n)
{
    if (n > scratch_floats) {
        float *p = realloc(scratch, n * sizeof(float));
        if (!p)
            return NULL;
        scratch = p;
        scratch_floats = n;
    }
    return scratch;
}

/* scan(x0, x1, init, out, op0, op1, reverse0, reverse1) -> bool: out = the scan of x0, x1 (P, N) from init
   (P or 1 values); True when done, False (out untouched) for operands it does not take (not float32, not
   2-D of one shape, init of another length, misaligned, out read-only or with overlapping elements, an
   op code outside 0..2) or a NaN in the result. */
static PyObject *scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8)
        Py_RETURN_FALSE;
    rows x0, x1, in, o;
    if (!as_rows(args[0], &x0, 2) || !as_rows(args[1], &x1, 2) || !as_rows(args[2], &in, 1) ||
        !as_rows(args[3], &o, 2))
        Py_RETURN_FALSE;
    if (PyArray_NDIM((PyArrayObject *)args[0]) != 2 || PyArray_NDIM((PyArrayObject *)args[1]) != 2 ||
        PyArray_NDIM((PyArrayObject *)args[3]) != 2)
        Py_RETURN_FALSE;
    const npy_intp P = x0.n0, N = x0.n1;
    if (x1.n0 != P || x1.n1 != N || o.n0 != P || o.n1 != N || (in.n1 != 1 && in.n1 != P))
        Py_RETURN_FALSE;
    if (!PyArray_ISWRITEABLE((PyArrayObject *)args[3]))
        Py_RETURN_FALSE;
    /* out's elements apart: unit-or-more column stride, rows no closer than a row's width */
    npy_intp os0 = o.s0 < 0 ? -o.s0 : o.s0, os1 = o.s1 < 0 ? -o.s1 : o.s1;
    if ((N > 1 && os1 < 4) || (P > 1 && N > 0 && os0 < (N > 1 ? os1 * (N - 1) + 4 : 4)))
        Py_RETURN_FALSE;
    long op0 = PyLong_AsLong(args[4]), op1 = PyLong_AsLong(args[5]);
    if ((op0 == -1 || op1 == -1) && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (op0 < 0 || op0 > 2 || op1 < 0 || op1 > 2)
        Py_RETURN_FALSE;
    int rev0 = PyObject_IsTrue(args[6]), rev1 = PyObject_IsTrue(args[7]);
    if (rev0 < 0 || rev1 < 0) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (P == 0 || N == 0)
        Py_RETURN_TRUE;
    /* the results, block after block, each block N columns of BLOCK floats; then data1's block */
    npy_intp blocks = (P + BLOCK - 1) / BLOCK;
    float *res = scratch_for((size_t)(blocks + 1) * BLOCK * N);
    if (!res)
        Py_RETURN_FALSE;
    float *d = res + blocks * BLOCK * N;
    float init[BLOCK];
    for (npy_intp k = 0; k < blocks; k++) {
        npy_intp p0 = k * BLOCK;
        long nb = P - p0 < BLOCK ? P - p0 : BLOCK;
        float *a = res + k * BLOCK * N;
        /* each row read once, in order, into column-major scratch (SBUF rows a multiple of 4 KiB apart
           share one L1 set: a column-by-column walk over them would evict them); a short last block
           repeats its last row */
        for (long b = 0; b < BLOCK; b++) {
            npy_intp p = p0 + (b < nb ? b : nb - 1);
            to_column(a + b, x0.p + p * x0.s0, x0.s1, N);
            to_column(d + b, x1.p + p * x1.s0, x1.s1, N);
            init[b] = at(&in, 0, in.n1 == 1 ? 0 : p);
        }
        KERNELS[op0][op1](a, d, init, N, rev0, rev1);
    }
    /* a NaN anywhere: numpy's business (its payload); out untouched */
    if (any_nan((const uint32_t *)res, blocks * BLOCK * N))
        Py_RETURN_FALSE;
    for (npy_intp p = 0; p < P; p++) {
        const float *restrict r = res + (p / BLOCK) * BLOCK * N + p % BLOCK;
        char *z = o.p + p * o.s0;
        if (o.s1 == 4) {
            float *restrict zf = (float *)z;
            for (npy_intp i = 0; i < N; i++)
                zf[i] = r[i * BLOCK];
        } else {
            for (npy_intp i = 0; i < N; i++)
                *(float *)(z + i * o.s1) = r[i * BLOCK];
        }
    }
    Py_RETURN_TRUE;
}

static PyMethodDef METHODS[] = {
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL,
     "scan(x0, x1, init, out, op0, op1, reverse0, reverse1) -> bool: out = the float32 scan (False: numpy's "
     "business, out untouched)"},
    {NULL, NULL, 0, NULL},
};

/* Loaded as npusim.nki._native_scan (native_scan.py): the init function's name follows. */
static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "npusim.nki._native_scan", NULL, -1, METHODS};

PyMODINIT_FUNC PyInit__native_scan(void)
{
    import_array();
    return PyModule_Create(&MODULE);
}
