/* The plan key of a basic index (tensor.py NkiTensor.__getitem__) in C: the Python loop building it and
 * the check that every field is a Python int (not a bool, float or numpy number that only equals one)
 * cost more than the rest of a planned slice. tensor.py's ``_view_key`` is the reference. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* 1 when o is None or an exact int; appends it */
static inline int field(PyObject *out, PyObject *o)
{
    if (o != Py_None && !PyLong_CheckExact(o))
        return 0;
    return PyList_Append(out, o) == 0 ? 1 : -1;
}

/* view_key(sig, lane_bytes, key, DynSlice) -> tuple | None
 * (sig, lane_bytes, then per index: an int as it is; a slice as slice, start, stop, step; an nl.ds as
 * DynSlice, start, size, step), None when an index or field is of another kind. */
static PyObject *view_key(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4)
        Py_RETURN_NONE;
    PyObject *key = args[2], *ds_type = args[3];
    PyObject *one[1];
    PyObject *const *items;
    Py_ssize_t n;
    if (PyTuple_CheckExact(key)) {
        items = &PyTuple_GET_ITEM(key, 0);
        n = PyTuple_GET_SIZE(key);
    } else {
        one[0] = key;
        items = one;
        n = 1;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    if (PyList_Append(out, args[0]) < 0 || PyList_Append(out, args[1]) < 0)
        goto fail;
    static const char *ds_fields[3] = {"start", "size", "step"};
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *o = items[k];
        int r;
        if (PyLong_CheckExact(o)) {
            r = PyList_Append(out, o) == 0 ? 1 : -1;
        } else if (PySlice_Check(o) && Py_TYPE(o) == &PySlice_Type) {
            PySliceObject *s = (PySliceObject *)o;
            r = PyList_Append(out, (PyObject *)&PySlice_Type) == 0 ? 1 : -1;
            if (r == 1) r = field(out, s->start);
            if (r == 1) r = field(out, s->stop);
            if (r == 1) r = field(out, s->step);
        } else if ((PyObject *)Py_TYPE(o) == ds_type) {
            r = PyList_Append(out, ds_type) == 0 ? 1 : -1;
            for (int f = 0; f < 3 && r == 1; f++) {
                PyObject *v = PyObject_GetAttrString(o, ds_fields[f]);
                if (v == NULL)
                    goto fail;
                r = field(out, v);
                Py_DECREF(v);
            }
        } else {
            r = 0;
        }
        if (r < 0)
            goto fail;
        if (r == 0) {
            Py_DECREF(out);
            Py_RETURN_NONE;
        }
    }
    PyObject *t = PyList_AsTuple(out);
    Py_DECREF(out);
    return t;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef METHODS[] = {
    {"view_key", (PyCFunction)(void (*)(void))view_key, METH_FASTCALL,
     "view_key(sig, lane_bytes, key, DynSlice) -> tuple | None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "npusim.nki._native_slicing", NULL, -1, METHODS};

PyMODINIT_FUNC PyInit__native_slicing(void)
{
    return PyModule_Create(&MODULE);
}
