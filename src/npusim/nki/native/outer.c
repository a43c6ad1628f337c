/* The K = 1 matmul as one C loop (npusim.nki.native_outer; blas._outer with numpy stays the reference and
   the fallback): out[m, n] = a[m, 0] * b[0, n] + 0 for float32 a [M, 1], b [1, N], out [M, N].

   Why: nl.broadcast_to's (1, 128) x (1, 16) nc_matmul costs numpy a NaN reduce, a broadcast multiply, an
   add and a copy into PSUM's partition-strided rows (~10 us in a kernel); here it is one pass writing
   each row of out once.

   Values: numpy's matmul runs its scalar loop for a contraction of 1 (out = 0; out += a * b): one float32
   multiplication and one addition of +0 per element, as here (built with -ffp-contract=off: no fused
   multiply-add, whose single rounding would keep a -0 that the separate addition turns into +0; without
   -ffast-math: no flush-to-zero, no dropped "+ 0"). A NaN operand gives that NaN (quieted) whichever side
   of the x86 multiplication it is on, so only a NaN in both a and b could come out differently (which
   payload wins depends on operand order): then, and for anything else not covered (another dtype or
   dimension count, shapes that do not fit, misalignment, a read-only out, an out whose bytes may meet a
   or b or each other), outer() returns False and the caller runs numpy. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <float.h>
#include <stdint.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "float arithmetic must evaluate in float (FLT_EVAL_METHOD 0) to match numpy's float32 ufuncs"
#endif

/* a 2-D float32 array in native byte order, 4-byte aligned (pointer and strides) */
static int f32_2d(PyObject *o)
{
    if (!PyArray_Check(o))
        return 0;
    PyArrayObject *a = (PyArrayObject *)o;
    if (PyArray_NDIM(a) != 2 || PyArray_DESCR(a)->type_num != NPY_FLOAT || !PyArray_ISNOTSWAPPED(a))
        return 0;
    const npy_intp *s = PyArray_STRIDES(a);
    return (uintptr_t)PyArray_BYTES(a) % 4 == 0 && s[0] % 4 == 0 && s[1] % 4 == 0;
}

/* [lo, hi): every byte the array's elements occupy */
static void byte_range(PyArrayObject *a, intptr_t *lo, intptr_t *hi)
{
    intptr_t l = (intptr_t)PyArray_BYTES(a), h = l;
    for (int i = 0; i < 2; i++) {
        npy_intp ext = PyArray_STRIDES(a)[i] * (PyArray_DIMS(a)[i] - 1);
        if (ext < 0) l += ext; else h += ext;
    }
    *lo = l;
    *hi = h + 4;
}

static int ranges_meet(PyArrayObject *x, PyArrayObject *y)
{
    intptr_t xl, xh, yl, yh;
    byte_range(x, &xl, &xh);
    byte_range(y, &yl, &yh);
    return xl < yh && yl < xh;
}

static int is_nan_bits(const char *p)
{
    uint32_t u;
    memcpy(&u, p, 4);
    return (u & 0x7fffffffu) > 0x7f800000u;
}

static int any_nan(const char *p, npy_intp n, npy_intp s)
{
    int bad = 0;
    for (npy_intp i = 0; i < n; i++)
        bad |= is_nan_bits(p + i * s);
    return bad;
}

/* row = x * b + 0 over n contiguous elements; out's bytes meet neither input (checked by the caller), so
   `restrict` spares the compiler a run-time alias test per (short) row */
static void product_row(float x, const float *restrict b, float *restrict row, npy_intp n)
{
    for (npy_intp j = 0; j < n; j++) {
        float p = x * b[j];
        row[j] = p + 0.0f;
    }
}

static PyObject *outer(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3)
        Py_RETURN_FALSE;
    if (!f32_2d(args[0]) || !f32_2d(args[1]) || !f32_2d(args[2]))
        Py_RETURN_FALSE;
    PyArrayObject *a = (PyArrayObject *)args[0], *b = (PyArrayObject *)args[1], *o = (PyArrayObject *)args[2];
    const npy_intp m = PyArray_DIMS(a)[0], n = PyArray_DIMS(b)[1];
    if (PyArray_DIMS(a)[1] != 1 || PyArray_DIMS(b)[0] != 1 || PyArray_DIMS(o)[0] != m || PyArray_DIMS(o)[1] != n
        || m == 0 || n == 0)
        Py_RETURN_FALSE;
    if (!PyArray_ISWRITEABLE(o))
        Py_RETURN_FALSE;
    const npy_intp as = PyArray_STRIDES(a)[0], bs = PyArray_STRIDES(b)[1];
    const npy_intp os0 = PyArray_STRIDES(o)[0], os1 = PyArray_STRIDES(o)[1];
    /* out's elements apart from each other: a positive element stride of at least 4 bytes and, for
       several rows, rows at least a row's span apart (either direction) */
    npy_intp row_span = os1 * (n - 1) + 4, step = os0 < 0 ? -os0 : os0;
    if ((n > 1 && os1 < 4) || (m > 1 && step < row_span))
        Py_RETURN_FALSE;
    if (ranges_meet(o, a) || ranges_meet(o, b))
        Py_RETURN_FALSE;
    const char *pa = PyArray_BYTES(a), *pb = PyArray_BYTES(b);
    if (any_nan(pa, m, as) && any_nan(pb, n, bs))
        Py_RETURN_FALSE;
    char *po = PyArray_BYTES(o);
    if (bs == 4 && os1 == 4) {
        for (npy_intp i = 0; i < m; i++) {
            float x;
            memcpy(&x, pa + i * as, 4);
            product_row(x, (const float *)pb, (float *)(po + i * os0), n);
        }
    } else {
        for (npy_intp i = 0; i < m; i++) {
            float x;
            memcpy(&x, pa + i * as, 4);
            char *row = po + i * os0;
            for (npy_intp j = 0; j < n; j++) {
                float p = x * *(const float *)(pb + j * bs);
                *(float *)(row + j * os1) = p + 0.0f;
            }
        }
    }
    Py_RETURN_TRUE;
}

static PyMethodDef METHODS[] = {
    {"outer", (PyCFunction)(void (*)(void))outer, METH_FASTCALL,
     "outer(a, b, out) -> bool: out = a @ b for float32 a [M, 1], b [1, N] as numpy's matmul computes it"},
    {NULL, NULL, 0, NULL},
};

/* Loaded as npusim.nki._native_outer (native_outer.py): the init function's name follows. */
static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "npusim.nki._native_outer", NULL, -1, METHODS};

PyMODINIT_FUNC PyInit__native_outer(void)
{
    import_array();
    return PyModule_Create(&MODULE);
}
