/* Whole-tile elementwise ops on 1-D / 2-D strided ndarrays (npusim.nki.native_elementwise; numpy stays
   the reference and the fallback).

   SBUF tiles are rows 208 KiB apart in one byte array, so numpy runs a (128, 16) ufunc through its general
   iterator and, unable to prove that the output misses the inputs (all share one buffer), through
   buffers: ~4 us where the arithmetic is ~0.1 us. Here each call checks its operands in a few integer
   operations and runs plain loops over the rows.

   Every function returns True when it did the whole op, False when the caller must run numpy instead:
   a dtype, shape, dimension count or alignment it does not cover, a read-only output, an output that
   overlaps an input other than exactly (same address, shape and strides), an output whose elements
   overlap each other, or (binary) a NaN in an input. last_reason() names why the last call said False.

   Arithmetic: one IEEE float32 operation per element, built with -ffp-contract=off (no fused
   multiply-add) and without -ffast-math (no flush-to-zero), under the same MXCSR as numpy's loops, so
   subnormals, signed zeros and infinities come out as numpy's. An invalid operation (inf - inf, 0 * inf)
   gives the x86 default NaN in both. A NaN input is the one case where they could differ (which operand's
   payload an x86 instruction keeps depends on operand order inside numpy's SIMD loops), so such an op
   goes to numpy whole (see binary()). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>
#include <float.h>
#include <stdint.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "float arithmetic must evaluate in float (FLT_EVAL_METHOD 0) to match numpy's float32 ufuncs"
#endif

enum reason { R_DONE, R_TYPE, R_SHAPE, R_ALIGN, R_READONLY, R_OVERLAP, R_NAN, R_OP };
static const char *const REASONS[] = {"done", "type", "shape", "align", "readonly", "overlap", "nan", "op"};
static int last = R_DONE;

static PyObject *ufunc_add, *ufunc_subtract, *ufunc_multiply;

/* An operand as rows: n0 rows s0 bytes apart, n1 elements s1 bytes apart in each (1-D: one row). */
typedef struct { char *p; npy_intp n0, n1, s0, s1, size; int nd; } tile;

static int as_tile(PyObject *o, tile *t)
{
    if (!PyArray_Check(o))
        return R_TYPE;
    PyArrayObject *a = (PyArrayObject *)o;
    int nd = PyArray_NDIM(a);
    const npy_intp *d = PyArray_DIMS(a), *s = PyArray_STRIDES(a);
    t->p = PyArray_BYTES(a);
    t->size = PyArray_ITEMSIZE(a);
    t->nd = nd;
    if (nd == 2) {
        t->n0 = d[0]; t->n1 = d[1]; t->s0 = s[0]; t->s1 = s[1];
    } else if (nd == 1) {
        t->n0 = 1; t->n1 = d[0]; t->s0 = 0; t->s1 = s[0];
    } else {
        return R_SHAPE;
    }
    if ((uintptr_t)t->p % t->size || t->s0 % t->size || t->s1 % t->size)
        return R_ALIGN;
    return R_DONE;
}

static int same_shape(const tile *a, const tile *b) { return a->nd == b->nd && a->n0 == b->n0 && a->n1 == b->n1; }

/* An operand's bytes as rows of one width: the first row's lowest byte, the row count, the distance
   between rows (>= 0) and the bytes one row spans (gaps included). */
typedef struct { intptr_t lo; npy_intp rows, step, width; } span;

static span span_of(const tile *t)
{
    span r;
    intptr_t lo = (intptr_t)t->p;
    npy_intp s1 = t->s1 < 0 ? -t->s1 : t->s1;
    if (t->s1 < 0)
        lo += t->s1 * (t->n1 - 1);
    r.width = t->n1 > 1 ? s1 * (t->n1 - 1) + t->size : t->size;
    r.rows = t->n0;
    r.step = t->n0 > 1 ? (t->s0 < 0 ? -t->s0 : t->s0) : 0;
    if (t->n0 > 1 && t->s0 < 0)
        lo += t->s0 * (t->n0 - 1);
    r.lo = lo;
    return r;
}

static int intervals_meet(intptr_t a, npy_intp wa, intptr_t b, npy_intp wb) { return a < b + wb && b < a + wa; }

/* May the bytes of a and b meet? Exact for rows of a common step no wider than the step (how SBUF tiles
   sit: 128 partitions, one row each, 208 KiB apart); otherwise whether their whole ranges meet (a
   conservative answer: True sends the op to numpy). Rows are taken as solid (gaps inside a row count). */
static int may_overlap(const tile *ta, const tile *tb)
{
    if (ta->n0 * ta->n1 == 0 || tb->n0 * tb->n1 == 0)
        return 0;
    span a = span_of(ta), b = span_of(tb);
    if (a.rows == 1 && b.rows == 1)
        return intervals_meet(a.lo, a.width, b.lo, b.width);
    npy_intp step = a.rows > 1 ? a.step : b.step;
    if ((a.rows > 1 && b.rows > 1 && a.step != b.step) || a.width > step || b.width > step)
        return intervals_meet(a.lo, a.step * (a.rows - 1) + a.width, b.lo, b.step * (b.rows - 1) + b.width);
    /* Relative to a's first row: b's row j starts at (j + q) * step + r, 0 <= r < step. With both widths
       <= step, a's row i meets b's row j only for i = j + q (when r < a.width) or i = j + q + 1 (when
       r + b.width > step). */
    intptr_t diff = b.lo - a.lo;
    intptr_t q = diff / step, r = diff % step;
    if (r < 0) { r += step; q -= 1; }
    for (int dshift = 0; dshift < 2; dshift++) {
        if (dshift == 0 ? !(r < a.width) : !(r + b.width > step))
            continue;
        /* rows j of b with 0 <= j < b.rows and 0 <= j + q + dshift < a.rows */
        intptr_t k = q + dshift;
        intptr_t lo = k < 0 ? -k : 0, hi = b.rows < a.rows - k ? b.rows : a.rows - k;
        if (lo < hi)
            return 1;
    }
    return 0;
}

static int exactly_same(const tile *a, const tile *b)
{
    return a->p == b->p && same_shape(a, b) && (a->n0 <= 1 || a->s0 == b->s0) && (a->n1 <= 1 || a->s1 == b->s1);
}

/* Do the output's elements overlap each other (a broadcast view, rows closer than their width)? */
static int self_overlapping(const tile *t)
{
    if (t->n0 * t->n1 <= 1)
        return 0;
    span s = span_of(t);
    if (t->n1 > 1 && (t->s1 < 0 ? -t->s1 : t->s1) < t->size)
        return 1;
    return t->n0 > 1 && s.step < s.width;
}

/* The checks every output takes: writable, elements apart, no partial overlap with an input. */
static int check_out(PyObject *o, const tile *out, const tile *in0, const tile *in1)
{
    if (!PyArray_ISWRITEABLE((PyArrayObject *)o))
        return R_READONLY;
    if (self_overlapping(out))
        return R_OVERLAP;
    if (!exactly_same(out, in0) && may_overlap(out, in0))
        return R_OVERLAP;
    if (in1 && !exactly_same(out, in1) && may_overlap(out, in1))
        return R_OVERLAP;
    return R_DONE;
}

static int is_f32(PyObject *o)
{
    PyArray_Descr *d = PyArray_DESCR((PyArrayObject *)o);
    return d->type_num == NPY_FLOAT && PyArray_ISNOTSWAPPED((PyArrayObject *)o);
}

static PyObject *answer(int why)
{
    last = why;
    if (why == R_DONE)
        Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* ------------------------------------------------------------------------------------- float32 binary */

static int row_has_nan(const char *p, npy_intp n, npy_intp s)
{
    uint32_t bad = 0;
    if (s == 4) {
        const uint32_t *u = (const uint32_t *)p;
        for (npy_intp j = 0; j < n; j++)
            bad |= (u[j] & 0x7fffffffu) > 0x7f800000u;
    } else {
        for (npy_intp j = 0; j < n; j++) {
            uint32_t u;
            memcpy(&u, p + j * s, 4);
            bad |= (u & 0x7fffffffu) > 0x7f800000u;
        }
    }
    return bad != 0;
}

static int has_nan(const tile *t)
{
    for (npy_intp i = 0; i < t->n0; i++)
        if (row_has_nan(t->p + i * t->s0, t->n1, t->s1))
            return 1;
    return 0;
}

/* out = a op b row by row; returns whether some result is NaN (an input NaN or an invalid operation).
   RESTRICT is `restrict` in the variant for an out that shares no byte with a or b (checked before: no
   run-time alias test per row), empty in the one for an out that is exactly a or b. */
#define BINARY_ROWS(NAME, EXPR, RESTRICT)                                                                \
static int NAME(const tile *a, const tile *b, const tile *o)                                            \
{                                                                                                       \
    const npy_intp n0 = o->n0, n1 = o->n1, as0 = a->s0, as1 = a->s1, bs0 = b->s0, bs1 = b->s1,         \
                   os0 = o->s0, os1 = o->s1;                                                            \
    const char *pa = a->p, *pb = b->p;                                                                  \
    char *po = o->p;                                                                                    \
    int bad = 0;                                                                                        \
    if (as1 == 4 && bs1 == 4 && os1 == 4) {                                                             \
        for (npy_intp i = 0; i < n0; i++) {                                                             \
            const float *RESTRICT x = (const float *)(pa + i * as0);                                    \
            const float *RESTRICT y = (const float *)(pb + i * bs0);                                    \
            float *RESTRICT z = (float *)(po + i * os0);                                                \
            for (npy_intp j = 0; j < n1; j++) { float u = x[j], v = y[j], r = EXPR; z[j] = r; bad |= r != r; } \
        }                                                                                               \
    } else {                                                                                            \
        for (npy_intp i = 0; i < n0; i++)                                                               \
            for (npy_intp j = 0; j < n1; j++) {                                                         \
                float u = *(const float *)(pa + i * as0 + j * as1);                                     \
                float v = *(const float *)(pb + i * bs0 + j * bs1);                                     \
                float r = EXPR;                                                                         \
                *(float *)(po + i * os0 + j * os1) = r;                                                 \
                bad |= r != r;                                                                          \
            }                                                                                           \
    }                                                                                                   \
    return bad;                                                                                         \
}

BINARY_ROWS(add_rows, u + v, )
BINARY_ROWS(subtract_rows, u - v, )
BINARY_ROWS(multiply_rows, u * v, )
BINARY_ROWS(add_apart, u + v, restrict)
BINARY_ROWS(subtract_apart, u - v, restrict)
BINARY_ROWS(multiply_apart, u * v, restrict)

/* binary(ufunc, a, b, out): out = ufunc(a, b) for np.add / np.subtract / np.multiply on float32. */
static PyObject *binary(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4)
        return answer(R_TYPE);
    PyObject *fn = args[0];
    int (*rows)(const tile *, const tile *, const tile *), (*apart)(const tile *, const tile *, const tile *);
    if (fn == ufunc_add)
        rows = add_rows, apart = add_apart;
    else if (fn == ufunc_subtract)
        rows = subtract_rows, apart = subtract_apart;
    else if (fn == ufunc_multiply)
        rows = multiply_rows, apart = multiply_apart;
    else
        return answer(R_OP);
    tile a, b, o;
    int why;
    if ((why = as_tile(args[1], &a)) || (why = as_tile(args[2], &b)) || (why = as_tile(args[3], &o)))
        return answer(why);
    if (!is_f32(args[1]) || !is_f32(args[2]) || !is_f32(args[3]))
        return answer(R_TYPE);
    if (!same_shape(&a, &b) || !same_shape(&a, &o))
        return answer(R_SHAPE);
    if ((why = check_out(args[3], &o, &a, &b)))
        return answer(why);
    /* A NaN result comes from a NaN input (numpy's business) or an invalid operation (inf - inf, 0 * inf:
       the x86 default NaN in both). When out is an input, inputs are scanned first: nothing may be
       written before numpy takes over. Otherwise out misses the inputs, and a NaN result sends the op to
       numpy, which overwrites what was written. */
    if (exactly_same(&o, &a) || exactly_same(&o, &b)) {
        if (has_nan(&a) || has_nan(&b))
            return answer(R_NAN);
        rows(&a, &b, &o);
    } else if (apart(&a, &b, &o)) {
        return answer(R_NAN);
    }
    return answer(R_DONE);
}

/* ------------------------------------------------------------------------------------- copy and fill */

static int raw_type(PyObject *o)
{
    PyArray_Descr *d = PyArray_DESCR((PyArrayObject *)o);
    npy_intp n = PyArray_ITEMSIZE((PyArrayObject *)o);
    return !PyDataType_REFCHK(d) && (n == 1 || n == 2 || n == 4 || n == 8);
}

static int same_dtype(PyObject *a, PyObject *b)
{
    PyArray_Descr *x = PyArray_DESCR((PyArrayObject *)a), *y = PyArray_DESCR((PyArrayObject *)b);
    return x == y || PyArray_EquivTypes(x, y);
}

/* Short rows (SBUF tiles: 16 to a few hundred bytes per partition) copy faster element by element than
   through a memcpy call per row; long ones go to memcpy. */
#define COPY_ROWS(NAME, T)                                                                               \
static void NAME(const tile *s, const tile *o)                                                          \
{                                                                                                       \
    const npy_intp n0 = o->n0, n1 = o->n1, ss0 = s->s0, ss1 = s->s1, os0 = o->s0, os1 = o->s1;          \
    const char *ps = s->p;                                                                              \
    char *po = o->p;                                                                                    \
    if (ss1 == (npy_intp)sizeof(T) && os1 == (npy_intp)sizeof(T) && n1 * (npy_intp)sizeof(T) > 256) {  \
        for (npy_intp i = 0; i < n0; i++)                                                               \
            memcpy(po + i * os0, ps + i * ss0, n1 * sizeof(T));                                         \
    } else if (ss1 == (npy_intp)sizeof(T) && os1 == (npy_intp)sizeof(T)) {                              \
        for (npy_intp i = 0; i < n0; i++) {                                                             \
            const T *x = (const T *)(ps + i * ss0);                                                     \
            T *z = (T *)(po + i * os0);                                                                 \
            for (npy_intp j = 0; j < n1; j++) z[j] = x[j];                                              \
        }                                                                                               \
    } else {                                                                                            \
        for (npy_intp i = 0; i < n0; i++)                                                               \
            for (npy_intp j = 0; j < n1; j++)                                                           \
                *(T *)(po + i * os0 + j * os1) = *(const T *)(ps + i * ss0 + j * ss1);                  \
    }                                                                                                   \
}

COPY_ROWS(copy8, uint8_t)
COPY_ROWS(copy16, uint16_t)
COPY_ROWS(copy32, uint32_t)
COPY_ROWS(copy64, uint64_t)

/* copy(src, out): out[...] = src, same dtype and shape, the bytes as they are. */
static PyObject *copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2)
        return answer(R_TYPE);
    tile s, o;
    int why;
    if ((why = as_tile(args[0], &s)) || (why = as_tile(args[1], &o)))
        return answer(why);
    if (!raw_type(args[1]) || !same_dtype(args[0], args[1]))
        return answer(R_TYPE);
    if (!same_shape(&s, &o))
        return answer(R_SHAPE);
    if ((why = check_out(args[1], &o, &s, NULL)))
        return answer(why);
    if (exactly_same(&s, &o))
        return answer(R_DONE);
    switch (o.size) {
    case 1: copy8(&s, &o); break;
    case 2: copy16(&s, &o); break;
    case 4: copy32(&s, &o); break;
    default: copy64(&s, &o); break;
    }
    return answer(R_DONE);
}

#define FILL_ROWS(NAME, T)                                                                               \
static void NAME(const tile *o, const char *pattern)                                                    \
{                                                                                                       \
    const npy_intp n0 = o->n0, n1 = o->n1, os0 = o->s0, os1 = o->s1;                                    \
    char *po = o->p;                                                                                    \
    T v;                                                                                                \
    memcpy(&v, pattern, sizeof(T));                                                                     \
    if (os1 == (npy_intp)sizeof(T)) {                                                                   \
        for (npy_intp i = 0; i < n0; i++) {                                                             \
            T *z = (T *)(po + i * os0);                                                                 \
            for (npy_intp j = 0; j < n1; j++) z[j] = v;                                                 \
        }                                                                                               \
    } else {                                                                                            \
        for (npy_intp i = 0; i < n0; i++)                                                               \
            for (npy_intp j = 0; j < n1; j++) *(T *)(po + i * os0 + j * os1) = v;                       \
    }                                                                                                   \
}

FILL_ROWS(fill8, uint8_t)
FILL_ROWS(fill16, uint16_t)
FILL_ROWS(fill32, uint32_t)
FILL_ROWS(fill64, uint64_t)

/* fill(out, value): out[...] = value, value a 0-d array of out's dtype (its bytes repeated). */
static PyObject *fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyArray_Check(args[1]) || PyArray_NDIM((PyArrayObject *)args[1]) != 0)
        return answer(R_TYPE);
    tile o;
    int why;
    if ((why = as_tile(args[0], &o)))
        return answer(why);
    if (!raw_type(args[0]) || !same_dtype(args[0], args[1]))
        return answer(R_TYPE);
    if (!PyArray_ISWRITEABLE((PyArrayObject *)args[0]))
        return answer(R_READONLY);
    if (self_overlapping(&o))
        return answer(R_OVERLAP);
    const char *pattern = PyArray_BYTES((PyArrayObject *)args[1]);
    switch (o.size) {
    case 1: fill8(&o, pattern); break;
    case 2: fill16(&o, pattern); break;
    case 4: fill32(&o, pattern); break;
    default: fill64(&o, pattern); break;
    }
    return answer(R_DONE);
}

/* ------------------------------------------------------------------------------ activation's affine step */

/* A scale or bias operand of affine(): absent (None), one float32 value (a numpy float32 scalar or a 0-d
   array), or a (P, 1) float32 column; 0 when it is none of these. */
typedef struct { int kind; float value; const char *p; npy_intp s0; int nan; } column;
enum { C_NONE, C_VALUE, C_COLUMN };

static int float_bits_nan(float v) { uint32_t u; memcpy(&u, &v, 4); return (u & 0x7fffffffu) > 0x7f800000u; }

static int as_column(PyObject *o, npy_intp P, column *c)
{
    c->nan = 0;
    if (o == Py_None) {
        c->kind = C_NONE;
        return 1;
    }
    if (PyArray_IsScalar(o, Float)) {
        c->kind = C_VALUE;
        c->value = PyArrayScalar_VAL(o, Float);
        c->nan = float_bits_nan(c->value);
        return 1;
    }
    if (!PyArray_Check(o) || !is_f32(o))
        return 0;
    PyArrayObject *a = (PyArrayObject *)o;
    if ((uintptr_t)PyArray_BYTES(a) % 4)
        return 0;
    if (PyArray_NDIM(a) == 0) {
        c->kind = C_VALUE;
        memcpy(&c->value, PyArray_BYTES(a), 4);
        c->nan = float_bits_nan(c->value);
        return 1;
    }
    if (PyArray_NDIM(a) != 2 || PyArray_DIMS(a)[0] != P || PyArray_DIMS(a)[1] != 1 || PyArray_STRIDES(a)[0] % 4)
        return 0;
    c->kind = C_COLUMN;
    c->p = PyArray_BYTES(a);
    c->s0 = PyArray_STRIDES(a)[0];
    for (npy_intp i = 0; i < P; i++)
        c->nan |= float_bits_nan(*(const float *)(c->p + i * c->s0));
    return 1;
}

static float column_at(const column *c, npy_intp i) { return c->kind == C_VALUE ? c->value : *(const float *)(c->p + i * c->s0); }

/* affine(x, scale, bias) -> a new C-contiguous float32 array of x's (P, N) shape holding x * scale + bias
   (each step one float32 operation, as numpy's ``x * scale`` then ``+ bias``; scale None: no multiply, bias
   None: no add), or None when numpy must do it: x not a 1-D / 2-D float32 array, an operand of another
   form, or a NaN in x, scale or bias (payloads are numpy's business; an invalid operation gives the x86
   default NaN in both, and adding a NaN-free bias keeps it). */
static PyObject *affine(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyArray_Check(args[0]) || !is_f32(args[0]))
        Py_RETURN_NONE;
    tile x;
    if (as_tile(args[0], &x))
        Py_RETURN_NONE;
    column sc, bi;
    if (!as_column(args[1], x.n0, &sc) || !as_column(args[2], x.n0, &bi) || sc.nan || bi.nan)
        Py_RETURN_NONE;
    /* a (P, 1) column against a 1-D x would broadcast the other way in numpy */
    if (x.nd == 1 && (sc.kind == C_COLUMN || bi.kind == C_COLUMN))
        Py_RETURN_NONE;
    PyObject *out = PyArray_SimpleNew(PyArray_NDIM((PyArrayObject *)args[0]), PyArray_DIMS((PyArrayObject *)args[0]),
                                      NPY_FLOAT);
    if (!out)
        return NULL;
    float *z = (float *)PyArray_DATA((PyArrayObject *)out);
    uint32_t bad = 0;
    for (npy_intp i = 0; i < x.n0; i++) {
        const char *row = x.p + i * x.s0;
        float *zr = z + i * x.n1;
        if (x.s1 == 4) {        /* unit stride: loops the compiler vectorises (the same IEEE steps per lane) */
            const uint32_t *restrict u = (const uint32_t *)row;
            const float *restrict xr = (const float *)row;
            float *restrict zo = zr;
            uint32_t wrap = 0;      /* a NaN: 0x7f800000 - |u| wraps to a set top bit */
            for (npy_intp j = 0; j < x.n1; j++)
                wrap |= 0x7f800000u - (u[j] & 0x7fffffffu);
            bad |= wrap >> 31;
            if (sc.kind != C_NONE && bi.kind != C_NONE) {
                float m = column_at(&sc, i), b = column_at(&bi, i);
                for (npy_intp j = 0; j < x.n1; j++) { float t = xr[j] * m; zo[j] = t + b; }
            } else if (sc.kind != C_NONE) {
                float m = column_at(&sc, i);
                for (npy_intp j = 0; j < x.n1; j++) zo[j] = xr[j] * m;
            } else if (bi.kind != C_NONE) {
                float b = column_at(&bi, i);
                for (npy_intp j = 0; j < x.n1; j++) zo[j] = xr[j] + b;
            } else {
                for (npy_intp j = 0; j < x.n1; j++) zo[j] = xr[j];
            }
            continue;
        }
        for (npy_intp j = 0; j < x.n1; j++)
            bad |= float_bits_nan(*(const float *)(row + j * x.s1));
        if (sc.kind != C_NONE && bi.kind != C_NONE) {
            float m = column_at(&sc, i), b = column_at(&bi, i);
            for (npy_intp j = 0; j < x.n1; j++) { float t = *(const float *)(row + j * x.s1) * m; zr[j] = t + b; }
        } else if (sc.kind != C_NONE) {
            float m = column_at(&sc, i);
            for (npy_intp j = 0; j < x.n1; j++) zr[j] = *(const float *)(row + j * x.s1) * m;
        } else if (bi.kind != C_NONE) {
            float b = column_at(&bi, i);
            for (npy_intp j = 0; j < x.n1; j++) zr[j] = *(const float *)(row + j * x.s1) + b;
        } else {
            for (npy_intp j = 0; j < x.n1; j++) zr[j] = *(const float *)(row + j * x.s1);
        }
    }
    if (bad) {
        Py_DECREF(out);
        Py_RETURN_NONE;
    }
    return out;
}

static PyObject *last_reason(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return PyUnicode_FromString(REASONS[last]);
}

/* ------------------------------------------------------------------------------------------- module */

static PyMethodDef METHODS[] = {
    {"binary", (PyCFunction)(void (*)(void))binary, METH_FASTCALL,
     "binary(ufunc, a, b, out) -> bool: out = ufunc(a, b) for float32 add/subtract/multiply"},
    {"copy", (PyCFunction)(void (*)(void))copy, METH_FASTCALL, "copy(src, out) -> bool: out[...] = src"},
    {"fill", (PyCFunction)(void (*)(void))fill, METH_FASTCALL, "fill(out, value) -> bool: out[...] = value"},
    {"affine", (PyCFunction)(void (*)(void))affine, METH_FASTCALL,
     "affine(x, scale, bias) -> x * scale + bias as a new float32 array, or None (numpy's business)"},
    {"last_reason", (PyCFunction)(void (*)(void))last_reason, METH_FASTCALL,
     "why the last call returned False ('done' when it returned True)"},
    {NULL, NULL, 0, NULL},
};

/* Loaded as npusim.nki._native_elementwise (native_elementwise.py): the init function's name follows. */
static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "npusim.nki._native_elementwise", NULL, -1, METHODS};

PyMODINIT_FUNC PyInit__native_elementwise(void)
{
    import_array();
    PyObject *np = PyImport_ImportModule("numpy");
    if (np == NULL)
        return NULL;
    ufunc_add = PyObject_GetAttrString(np, "add");
    ufunc_subtract = PyObject_GetAttrString(np, "subtract");
    ufunc_multiply = PyObject_GetAttrString(np, "multiply");
    Py_DECREF(np);
    if (!ufunc_add || !ufunc_subtract || !ufunc_multiply)
        return NULL;
    return PyModule_Create(&MODULE);
}
