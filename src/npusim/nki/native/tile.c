/* The on-chip tile's birth and death in C (native_tile.py loads it): runtime.Run._place's common case and
   alloc.TileBlock's death callback. Python stays the reference and the fallback:

   place(run, plan, buffer, name) -> the new tile, or None when next fit's fast case does not apply (the
       request does not end up after every block, or does not fit before the end: the caller runs
       Run._place, which also holds every error). Otherwise it does what Run._place does, in order:
       NextFitAllocator.reserve's "past every block" case (cursor, high), the TensorView, its numpy array
       sliced from the plan's rows, the NkiTensor, the TileBlock (a weak reference to the tile whose
       callback is tile_died), the block appended to the allocator's blocks (alloc.insert when a block
       was freed meanwhile), the tile's loop scope.
   tile_died(block): TileBlock.release as the weak reference's callback: the block leaves its
       allocator's blocks (found by identity) and its allocator becomes None; NextFitAllocator.free
       raises the error when it is not there.

   Objects are made as Python makes them (tp_alloc) and their slots are set through their descriptors
   (configure() passes them, in the order of the *_SLOTS names in native_tile.py). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

/* configure() sets these */
static PyObject *ViewType, *TensorType, *BlockType, *view_slots, *tensor_slots, *block_slots, *died_fn;
static PyObject *s_cursor, *s_high, *s_blocks, *s_offset, *s_size;
static PyObject *s_scopes, *s_tiles, *s_insert, *s_free, *s_append, *slice_all, *zero, *PSUM, *SBUF;
static PyObject *s_sbuf_plans, *s_psum_plans;

enum { V_MEMORY, V_OFFSET, V_SHAPE, V_STRIDES, V_DTYPE, V_LANE_LO, V_LANE_HI, V_LO, V_HI, V_ARRAY, V_IV, V_IBOX,
       V_IWORDS, V_WRITTEN_GEN, V_N };
enum { T_TV, T_BUFFER, T_NAME, T_ROOT, T_RUN, T_FULL, T_STALE, T_CHECKED, T_ON_CHIP, T_IN_PSUM, T_FREE_SIZE,
       T_PARTITIONS, T_NBYTES, T_SHAPE, T_START_PARTITION, T_SIG, T_SCOPE, T_IND, T_N };
enum { B_OFFSET, B_SIZE, B_NAME, B_ALLOCATOR, B_N };
/* runtime.AllocPlan's fields */
enum { P_DT, P_SHAPE, P_STRIDES, P_FREE_SIZE, P_FREE_BYTES, P_NBYTES, P_BLOCK_NAME, P_ROWS, P_MEM, P_ALLOC, P_SIG,
       P_ALIGN, P_LIMIT, P_N };

/* each slot's byte offset in its object (configure() takes them from the member descriptors, which it
   checked are writable object slots of exactly these classes): a fresh object's slot is set by a store,
   as the descriptor's __set__ would (member_set for T_OBJECT_EX), without its call */
static Py_ssize_t view_at[V_N], tensor_at[T_N], block_at[B_N];

static inline void store(PyObject *obj, Py_ssize_t at, PyObject *value)
{
    PyObject **p = (PyObject **)((char *)obj + at);
    PyObject *old = *p;
    *p = Py_NewRef(value);
    Py_XDECREF(old);
}

static PyObject *get(PyObject *slots, int k, PyObject *obj)
{
    PyObject *d = PyTuple_GET_ITEM(slots, k);
    return Py_TYPE(d)->tp_descr_get(d, obj, (PyObject *)Py_TYPE(obj));
}

static int set(PyObject *slots, int k, PyObject *obj, PyObject *value)
{
    PyObject *d = PyTuple_GET_ITEM(slots, k);
    return Py_TYPE(d)->tp_descr_set(d, obj, value);
}

/* an attribute that must be an int fitting a long long; 0 with *ok = 0 when it is not (no error set) */
static long long int_attr(PyObject *o, PyObject *name, int *ok)
{
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL) {
        *ok = -1;
        return 0;
    }
    long long x = 0;
    if (PyLong_CheckExact(v)) {
        int overflow;
        x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            *ok = 0;
        }
    } else {
        *ok = 0;
    }
    Py_DECREF(v);
    return x;
}

/* block.offset / block.size (k, name): a TileBlock's slot read directly, another block's attribute */
static long long block_int(PyObject *b, int k, PyObject *name, int *ok)
{
    if (Py_TYPE(b) == (PyTypeObject *)BlockType) {
        PyObject *v = *(PyObject **)((char *)b + block_at[k]);
        if (v != NULL && PyLong_CheckExact(v)) {
            int overflow;
            long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
            if (!overflow && !(x == -1 && PyErr_Occurred()))
                return x;
            PyErr_Clear();
        }
    }
    return int_attr(b, name, ok);
}

static int set_int_attr(PyObject *o, PyObject *name, long long x)
{
    PyObject *v = PyLong_FromLongLong(x);
    if (v == NULL)
        return -1;
    int r = PyObject_SetAttr(o, name, v);
    Py_DECREF(v);
    return r;
}

/* NextFitAllocator.reserve(size) when the cursor (aligned to ``align``) is past every block and the
   request ends at or before ``limit`` (the allocator's end, or the memory's lane end when that is lower:
   Run._place raises that bounds error): 1 with *at set, cursor and high moved; 0 when that is not the
   case (nothing changed); -1 on an error */
static int reserve_past_blocks(PyObject *alloc, PyObject *blocks, long long size, long long align,
                               long long limit, long long *at_out)
{
    int ok = 1;
    long long cursor = int_attr(alloc, s_cursor, &ok);
    long long high = ok == 1 ? int_attr(alloc, s_high, &ok) : 0;
    if (ok != 1)
        return ok;
    if (size <= 0 || align <= 0 || cursor < 0 || cursor > (1LL << 48) || size > (1LL << 48) || limit > (1LL << 48))
        return 0;           /* (Python's floor division and big ints: the reference handles these) */
    long long at = (cursor + align - 1) / align * align;        /* -(-cursor // align) * align */
    Py_ssize_t n = PyList_GET_SIZE(blocks);
    if (n) {
        PyObject *last = PyList_GET_ITEM(blocks, n - 1);
        Py_INCREF(last);
        long long lo = block_int(last, B_OFFSET, s_offset, &ok);
        long long sz = ok == 1 ? block_int(last, B_SIZE, s_size, &ok) : 0;
        Py_DECREF(last);
        if (ok != 1)
            return ok;
        if (lo + sz > at)
            return 0;
    }
    if (at + size > limit)
        return 0;
    long long end = at + size;
    if (set_int_attr(alloc, s_cursor, end) < 0)
        return -1;
    if (end > high && set_int_attr(alloc, s_high, end) < 0)
        return -1;
    *at_out = at;
    return 1;
}

/* rows[:, column:column + n] as numpy's basic indexing makes it (get_view_from_index: an ndarray of the
   same dtype, rows' flags to start from (contiguity and alignment recomputed), the data pointer, rows as
   the base, collapsed to the data's owner as numpy does) for a plain 2-D ndarray whose columns reach that
   far; the indexing itself for anything else */
static PyObject *column_slice(PyObject *rows, long long column, long long n)
{
    PyArrayObject *a = (PyArrayObject *)rows;
    if (PyArray_CheckExact(rows) && PyArray_NDIM(a) == 2 && column >= 0 && n >= 0
        && column + n <= PyArray_DIM(a, 1) && PyDataType_ISNOTSWAPPED(PyArray_DESCR(a))
        && !PyDataType_HASSUBARRAY(PyArray_DESCR(a))) {
        npy_intp dims[2] = {PyArray_DIM(a, 0), (npy_intp)n};
        npy_intp strides[2] = {PyArray_STRIDE(a, 0), PyArray_STRIDE(a, 1)};
        PyArray_Descr *descr = PyArray_DESCR(a);
        Py_INCREF(descr);           /* (stolen) */
        PyObject *got = PyArray_NewFromDescr(&PyArray_Type, descr, 2, dims, strides,
                                             PyArray_BYTES(a) + column * PyArray_STRIDE(a, 1), PyArray_FLAGS(a), NULL);
        if (got != NULL && PyArray_SetBaseObject((PyArrayObject *)got, Py_NewRef(rows)) < 0)
            Py_CLEAR(got);          /* (SetBaseObject stole the reference, also when it failed) */
        return got;
    }
    PyObject *first = PyLong_FromLongLong(column), *stop = PyLong_FromLongLong(column + n);
    PyObject *sl = first && stop ? PySlice_New(first, stop, NULL) : NULL;
    PyObject *key = sl ? PyTuple_Pack(2, slice_all, sl) : NULL;
    Py_XDECREF(first); Py_XDECREF(stop); Py_XDECREF(sl);
    if (key == NULL)
        return NULL;
    PyObject *got = PyObject_GetItem(rows, key);
    Py_DECREF(key);
    return got;
}

static PyObject *place_plan(PyObject *run, PyObject *plan, PyObject *buffer, PyObject *name)
{
    if (!PyTuple_Check(plan) || PyTuple_GET_SIZE(plan) != P_N)
        Py_RETURN_NONE;
    PyObject *shape = PyTuple_GET_ITEM(plan, P_SHAPE), *strides = PyTuple_GET_ITEM(plan, P_STRIDES);
    PyObject *free_bytes_o = PyTuple_GET_ITEM(plan, P_FREE_BYTES), *rows = PyTuple_GET_ITEM(plan, P_ROWS);
    PyObject *mem = PyTuple_GET_ITEM(plan, P_MEM), *alloc = PyTuple_GET_ITEM(plan, P_ALLOC);
    if (!PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) < 2 || !PyTuple_CheckExact(strides)
        || PyTuple_GET_SIZE(strides) < 2 || !PyLong_CheckExact(free_bytes_o))
        Py_RETURN_NONE;
    long long free_bytes = PyLong_AsLongLong(free_bytes_o);
    long long stride1 = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, 1));
    long long free_size = PyLong_AsLongLong(PyTuple_GET_ITEM(plan, P_FREE_SIZE));
    long long align = PyLong_AsLongLong(PyTuple_GET_ITEM(plan, P_ALIGN));
    long long limit = PyLong_AsLongLong(PyTuple_GET_ITEM(plan, P_LIMIT));
    if (PyErr_Occurred())
        return NULL;
    int named = PyObject_IsTrue(name);
    if (named < 0)
        return NULL;
    PyObject *block_name = named ? name : PyTuple_GET_ITEM(plan, P_BLOCK_NAME);     /* name or block_name */

    PyObject *blocks = PyObject_GetAttr(alloc, s_blocks);
    if (blocks == NULL)
        return NULL;
    if (!PyList_CheckExact(blocks)) {
        Py_DECREF(blocks);
        Py_RETURN_NONE;
    }
    int ok = 1;
    if (rows != Py_None && stride1 <= 0) {
        Py_DECREF(blocks);
        Py_RETURN_NONE;
    }
    long long at = 0;
    int r = reserve_past_blocks(alloc, blocks, free_bytes, align, limit, &at);
    if (r <= 0) {
        Py_DECREF(blocks);
        if (r < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    Py_ssize_t index = PyList_GET_SIZE(blocks);     /* reserve's index: after every block */

    PyObject *view = NULL, *t = NULL, *block = NULL, *offset = NULL, *end = NULL, *array = NULL;
    PyObject *scopes = NULL, *tiles = NULL, *got = NULL;
    offset = PyLong_FromLongLong(at);
    end = PyLong_FromLongLong(at + free_bytes);
    if (offset == NULL || end == NULL)
        goto fail;
    /* the view: lanes [0, p), bytes [offset, end) */
    if (rows != Py_None && stride1 > 0 && at % stride1 == 0) {
        array = column_slice(rows, at / stride1, free_size);
        if (array == NULL)
            goto fail;
    } else {
        array = Py_NewRef(Py_None);
    }
    PyObject *lane_hi = PyTuple_GET_ITEM(shape, 0);
    view = ((PyTypeObject *)ViewType)->tp_alloc((PyTypeObject *)ViewType, 0);
    if (view == NULL)
        goto fail;
    PyObject *vv[V_N] = {mem, offset, shape, strides, PyTuple_GET_ITEM(plan, P_DT), zero, lane_hi, offset, end,
                         array, Py_None, Py_None, Py_None, Py_None};
    for (int k = 0; k < V_N; k++)
        store(view, view_at[k], vv[k]);
    /* the tile: never written, its init bytes stale */
    t = ((PyTypeObject *)TensorType)->tp_alloc((PyTypeObject *)TensorType, 0);
    if (t == NULL)
        goto fail;
    PyObject *tv[T_N] = {view, buffer, name, Py_None, run, Py_False, Py_True, Py_False, Py_True,
                         buffer == PSUM ? Py_True : Py_False, PyTuple_GET_ITEM(plan, P_FREE_SIZE), lane_hi,
                         PyTuple_GET_ITEM(plan, P_NBYTES), shape, zero, PyTuple_GET_ITEM(plan, P_SIG), Py_None, Py_None};
    for (int k = 0; k < T_N; k++)
        store(t, tensor_at[k], tv[k]);
    /* the block holding the bytes until the tile dies */
    block = PyObject_CallFunctionObjArgs(BlockType, t, died_fn, NULL);
    if (block == NULL)
        goto fail;
    PyObject *size = free_bytes_o;
    PyObject *bv[B_N] = {offset, size, block_name, alloc};
    if (Py_TYPE(block) != (PyTypeObject *)BlockType) {
        PyErr_SetString(PyExc_TypeError, "place: TileBlock() made another type");
        goto fail;
    }
    for (int k = 0; k < B_N; k++)
        store(block, block_at[k], bv[k]);
    /* alloc.insert(index, block), appending in the usual case: making the objects may have run the
       collector, and a block freed meanwhile moves the index (then alloc.insert finds the place) */
    Py_ssize_t n = PyList_GET_SIZE(blocks);
    int append = 0;
    if (index == n) {
        append = 1;
        if (n) {
            ok = 1;
            PyObject *last = Py_NewRef(PyList_GET_ITEM(blocks, n - 1));
            long long lo = block_int(last, B_OFFSET, s_offset, &ok);
            Py_DECREF(last);
            if (ok < 0)
                goto fail;
            append = ok == 1 && lo < at;
        }
    }
    if (append) {
        if (PyList_Append(blocks, block) < 0)
            goto fail;
    } else {
        PyObject *i = PyLong_FromSsize_t(index);
        got = i ? PyObject_CallMethodObjArgs(alloc, s_insert, i, block, NULL) : NULL;
        Py_XDECREF(i);
        if (got == NULL)
            goto fail;
        Py_CLEAR(got);
    }
    /* ... or lapses when its loop iteration ends (scope.py) */
    scopes = PyObject_GetAttr(run, s_scopes);
    if (scopes == NULL)
        goto fail;
    int has = PyObject_IsTrue(scopes);
    if (has < 0)
        goto fail;
    if (has) {
        PyObject *scope = PySequence_GetItem(scopes, -1);
        if (scope == NULL)
            goto fail;
        store(t, tensor_at[T_SCOPE], scope);
        tiles = PyObject_GetAttr(scope, s_tiles);
        Py_DECREF(scope);
        if (tiles == NULL)
            goto fail;
        if (PyList_CheckExact(tiles)) {
            if (PyList_Append(tiles, block) < 0)
                goto fail;
        } else {
            got = PyObject_CallMethodOneArg(tiles, s_append, block);
            if (got == NULL)
                goto fail;
            Py_CLEAR(got);
        }
    }
    Py_DECREF(view); Py_DECREF(block); Py_DECREF(offset); Py_DECREF(end); Py_DECREF(array);
    Py_DECREF(scopes); Py_XDECREF(tiles); Py_DECREF(blocks);
    return t;
fail:
    Py_XDECREF(view); Py_XDECREF(t); Py_XDECREF(block); Py_XDECREF(offset); Py_XDECREF(end);
    Py_XDECREF(array); Py_XDECREF(scopes); Py_XDECREF(tiles); Py_DECREF(blocks);
    return NULL;
}

static PyObject *place(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "place(run, plan, buffer, name)");
        return NULL;
    }
    if (ViewType == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "place: configure() first");
        return NULL;
    }
    return place_plan(args[0], args[1], args[2], args[3]);
}

/* Run.allocate's plan hit: an SBUF/PSUM (shape, dtype) seen before in this launch, a shape of Python
   ints (not bools or numpy ints: the general path checks those), placed by place_plan; None otherwise */
static PyObject *allocate(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "allocate(run, shape, dtype, buffer, name)");
        return NULL;
    }
    if (ViewType == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "allocate: configure() first");
        return NULL;
    }
    PyObject *run = args[0], *shape = args[1], *dtype = args[2], *buffer = args[3], *name = args[4];
    PyObject *which = buffer == SBUF ? s_sbuf_plans : buffer == PSUM ? s_psum_plans : NULL;
    if (which == NULL || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) < 1)
        Py_RETURN_NONE;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(shape); k++)
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(shape, k)))
            Py_RETURN_NONE;
    PyObject *plans = PyObject_GetAttr(run, which);
    if (plans == NULL)
        return NULL;
    if (!PyDict_CheckExact(plans)) {
        Py_DECREF(plans);
        Py_RETURN_NONE;
    }
    PyObject *key = PyTuple_Pack(2, shape, dtype);
    PyObject *plan = key ? PyDict_GetItemWithError(plans, key) : NULL;
    Py_XDECREF(key);
    if (plan == NULL) {
        Py_DECREF(plans);
        if (key != NULL && PyErr_ExceptionMatches(PyExc_TypeError))
            PyErr_Clear();          /* an unhashable dtype: Run.allocate's general path names it */
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    Py_INCREF(plan);
    Py_DECREF(plans);
    PyObject *t = place_plan(run, plan, buffer, name);
    Py_DECREF(plan);
    return t;
}

/* TileBlock.release as the weak reference's callback (the tile died) */
static PyObject *tile_died(PyObject *mod, PyObject *block)
{
    if (ViewType == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "tile_died: configure() first");
        return NULL;
    }
    PyObject *alloc = get(block_slots, B_ALLOCATOR, block);
    if (alloc == NULL)
        return NULL;
    if (alloc == Py_None) {
        Py_DECREF(alloc);
        Py_RETURN_NONE;
    }
    if (set(block_slots, B_ALLOCATOR, block, Py_None) < 0) {
        Py_DECREF(alloc);
        return NULL;
    }
    PyObject *blocks = PyObject_GetAttr(alloc, s_blocks);
    if (blocks == NULL) {
        Py_DECREF(alloc);
        return NULL;
    }
    /* by identity (offsets are unique, so the bisection by offset in release finds this one): a pointer
       compare per block, from the oldest offsets, where next fit put the tiles that die first */
    if (PyList_CheckExact(blocks)) {
        Py_ssize_t n = PyList_GET_SIZE(blocks);
        for (Py_ssize_t i = 0; i < n; i++)
            if (PyList_GET_ITEM(blocks, i) == block) {
                int r = PyList_SetSlice(blocks, i, i + 1, NULL);
                Py_DECREF(blocks);
                Py_DECREF(alloc);
                if (r < 0)
                    return NULL;
                Py_RETURN_NONE;
            }
    }
    Py_DECREF(blocks);
    PyObject *got = PyObject_CallMethodOneArg(alloc, s_free, block);    /* (its error) */
    Py_DECREF(alloc);
    return got;
}

static int take(PyObject *d, const char *key, PyObject **slot)
{
    PyObject *v = PyDict_GetItemString(d, key);
    if (v == NULL) {
        PyErr_Format(PyExc_KeyError, "configure: missing %s", key);
        return -1;
    }
    Py_XSETREF(*slot, Py_NewRef(v));
    return 0;
}

static int descriptors(PyObject *slots, Py_ssize_t n, PyObject *type, Py_ssize_t *at, const char *what)
{
    if (!PyTuple_Check(slots) || PyTuple_GET_SIZE(slots) != n) {
        PyErr_Format(PyExc_TypeError, "configure: %s must be a tuple of %zd slot descriptors", what, n);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *d = PyTuple_GET_ITEM(slots, k);
        PyMemberDef *m = Py_IS_TYPE(d, &PyMemberDescr_Type) ? ((PyMemberDescrObject *)d)->d_member : NULL;
        if (m == NULL || m->type != T_OBJECT_EX || (m->flags & READONLY)
            || (PyObject *)((PyDescrObject *)d)->d_type != type) {
            PyErr_Format(PyExc_TypeError, "configure: %s[%zd] is not a writable object slot of its class", what, k);
            return -1;
        }
        at[k] = m->offset;
    }
    return 0;
}

/* configure(dict): the types, their slot descriptors, PSUM, tile_died as a callable */
static PyObject *configure(PyObject *mod, PyObject *d)
{
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "configure(dict)");
        return NULL;
    }
    PyObject *view_type = NULL;
    if (take(d, "TensorView", &view_type) < 0 || take(d, "NkiTensor", &TensorType) < 0 ||
        take(d, "TileBlock", &BlockType) < 0 || take(d, "view_slots", &view_slots) < 0 ||
        take(d, "tensor_slots", &tensor_slots) < 0 || take(d, "block_slots", &block_slots) < 0 ||
        take(d, "PSUM", &PSUM) < 0 || take(d, "SBUF", &SBUF) < 0 || take(d, "tile_died", &died_fn) < 0)
        goto fail;
    if (!PyType_Check(view_type) || !PyType_Check(TensorType) || !PyType_Check(BlockType) ||
        descriptors(view_slots, V_N, view_type, view_at, "view_slots") < 0 ||
        descriptors(tensor_slots, T_N, TensorType, tensor_at, "tensor_slots") < 0 ||
        descriptors(block_slots, B_N, BlockType, block_at, "block_slots") < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "configure: TensorView, NkiTensor and TileBlock must be types");
        goto fail;
    }
    Py_XSETREF(ViewType, view_type);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(view_type);
    return NULL;
}

static PyMethodDef module_methods[] = {
    {"place", (PyCFunction)(void (*)(void))place, METH_FASTCALL,
     "place(run, plan, buffer, name): Run._place's common case, or None (run Run._place)."},
    {"allocate", (PyCFunction)(void (*)(void))allocate, METH_FASTCALL,
     "allocate(run, shape, dtype, buffer, name): Run.allocate's plan hit placed in C, or None."},
    {"tile_died", (PyCFunction)tile_died, METH_O, "TileBlock.release as the weak reference's callback."},
    {"configure", (PyCFunction)configure, METH_O, "Give the module the types and slots it builds (native_tile.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_native_tile", "On-chip tile birth and death in C.", -1, module_methods, NULL, NULL,
    NULL, NULL,
};

#define INTERN(var, text) if (!(var = PyUnicode_InternFromString(text))) return NULL

PyMODINIT_FUNC PyInit__native_tile(void)
{
    import_array();
    INTERN(s_cursor, "cursor");
    INTERN(s_high, "high"); INTERN(s_blocks, "blocks"); INTERN(s_offset, "offset"); INTERN(s_size, "size");
    INTERN(s_scopes, "scopes"); INTERN(s_tiles, "tiles"); INTERN(s_insert, "insert"); INTERN(s_free, "free");
    INTERN(s_append, "append"); INTERN(s_sbuf_plans, "_sbuf_plans"); INTERN(s_psum_plans, "_psum_plans");
    if (!(slice_all = PySlice_New(NULL, NULL, NULL)) || !(zero = PyLong_FromLong(0)))
        return NULL;
    return PyModule_Create(&module_def);
}
