/* The DMA engines' two hot questions in C (nki/dma.py, native_dma.py): the first common free start of
 * some engine classes, and the common reservation (after every interval, nothing nested, no folding).
 *
 * Both work on dma.py's own Python lists (per class: busy starts, ends, floor, latest end), so the
 * Python class stays the one record; dma.py's Python code is the reference. Every number must be an
 * exact Python float: otherwise (and for every case the C code does not cover) the functions answer
 * None / False without changing anything and the caller runs the Python code. Float comparisons and the
 * one addition (start + d) are those Python does on the same doubles. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* the double in an exact float, else -1 (and *ok = 0) */
static inline double num(PyObject *o, int *ok)
{
    if (!PyFloat_CheckExact(o)) {
        *ok = 0;
        return 0.0;
    }
    return PyFloat_AS_DOUBLE(o);
}

/* bisect_right(ends, x) over a list of exact floats */
static inline Py_ssize_t bisect_right(PyObject *ends, double x, int *ok)
{
    Py_ssize_t lo = 0, hi = PyList_GET_SIZE(ends);
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (x < num(PyList_GET_ITEM(ends, mid), ok))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* a class index from ``classes`` that indexes every per-class list, else -1 */
static inline Py_ssize_t class_at(PyObject *classes, Py_ssize_t k, Py_ssize_t nclasses)
{
    PyObject *o = PyList_GET_ITEM(classes, k);
    if (!PyLong_CheckExact(o))
        return -1;
    Py_ssize_t c = PyLong_AsSsize_t(o);
    if (c < 0 || c >= nclasses) {
        PyErr_Clear();
        return -1;
    }
    return c;
}

static int all_lists(PyObject *const *args, int n)
{
    for (int i = 0; i < n; i++)
        if (!PyList_CheckExact(args[i]))
            return 0;
    return 1;
}

/* earliest(classes, starts_of, ends_of, floor, latest, t, d) -> float | None
 * DmaEngines._earliest's passes over ``classes`` (the caller chose them: classes, or engine by engine). */
static PyObject *earliest(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7 || !all_lists(args, 5))
        Py_RETURN_NONE;
    PyObject *classes = args[0], *starts_of = args[1], *ends_of = args[2], *floor = args[3], *latest = args[4];
    Py_ssize_t nclasses = PyList_GET_SIZE(starts_of);
    if (PyList_GET_SIZE(ends_of) != nclasses || PyList_GET_SIZE(floor) != nclasses
            || PyList_GET_SIZE(latest) != nclasses)
        Py_RETURN_NONE;
    int ok = 1;
    double s = num(args[5], &ok), d = num(args[6], &ok);
    Py_ssize_t n = PyList_GET_SIZE(classes);
    for (Py_ssize_t k = 0; k < n; k++) {       /* max(t, floors): the first of equals */
        Py_ssize_t c = class_at(classes, k, nclasses);
        if (c < 0)
            Py_RETURN_NONE;
        double f = num(PyList_GET_ITEM(floor, c), &ok);
        if (f > s)
            s = f;
        PyObject *st = PyList_GET_ITEM(starts_of, c), *en = PyList_GET_ITEM(ends_of, c);
        if (!PyList_CheckExact(st) || !PyList_CheckExact(en) || PyList_GET_SIZE(st) != PyList_GET_SIZE(en))
            Py_RETURN_NONE;
    }
    if (!ok)
        Py_RETURN_NONE;
    for (;;) {
        double s2 = s;
        for (Py_ssize_t k = 0; k < n; k++) {   /* the first fit on class c at or after s2 */
            Py_ssize_t c = class_at(classes, k, nclasses);
            if (s2 >= num(PyList_GET_ITEM(latest, c), &ok))
                continue;                       /* after every interval: s2 itself */
            PyObject *st = PyList_GET_ITEM(starts_of, c), *en = PyList_GET_ITEM(ends_of, c);
            Py_ssize_t i = bisect_right(en, s2, &ok), len = PyList_GET_SIZE(st);
            while (i < len && num(PyList_GET_ITEM(st, i), &ok) < s2 + d) {
                s2 = num(PyList_GET_ITEM(en, i), &ok);
                i++;
            }
        }
        if (!ok)
            Py_RETURN_NONE;
        if (s2 == s)
            return PyFloat_FromDouble(s);
        s = s2;
    }
}

/* reserve_after(classes, starts_of, ends_of, latest, s, d, keep) -> bool
 * DmaEngines.reserve's common case, done: on every class the interval [s, s + d) starts after every
 * interval (or the class has none), lies inside none (the last end <= s + d) and the class keeps at most
 * ``keep`` intervals after it. Otherwise False and nothing changed. */
static PyObject *reserve_after(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7 || !all_lists(args, 4) || !PyLong_CheckExact(args[6]))
        Py_RETURN_FALSE;
    PyObject *classes = args[0], *starts_of = args[1], *ends_of = args[2], *latest = args[3];
    Py_ssize_t nclasses = PyList_GET_SIZE(starts_of);
    if (PyList_GET_SIZE(ends_of) != nclasses || PyList_GET_SIZE(latest) != nclasses)
        Py_RETURN_FALSE;
    Py_ssize_t keep = PyLong_AsSsize_t(args[6]);
    if (keep < 0) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    int ok = 1;
    double s = num(args[4], &ok), d = num(args[5], &ok);
    if (!ok)
        Py_RETURN_FALSE;
    double e = s + d;
    Py_ssize_t n = PyList_GET_SIZE(classes);
    for (Py_ssize_t k = 0; k < n; k++) {       /* check every class first: all or nothing */
        Py_ssize_t c = class_at(classes, k, nclasses);
        if (c < 0)
            Py_RETURN_FALSE;
        PyObject *st = PyList_GET_ITEM(starts_of, c), *en = PyList_GET_ITEM(ends_of, c);
        if (!PyList_CheckExact(st) || !PyList_CheckExact(en))
            Py_RETURN_FALSE;
        Py_ssize_t len = PyList_GET_SIZE(st);
        if (PyList_GET_SIZE(en) != len || len + 1 > keep)
            Py_RETURN_FALSE;
        num(PyList_GET_ITEM(latest, c), &ok);
        if (len && !(s > num(PyList_GET_ITEM(st, len - 1), &ok) && !(num(PyList_GET_ITEM(en, len - 1), &ok) > e)))
            Py_RETURN_FALSE;
        for (Py_ssize_t j = 0; j < k; j++)     /* a class twice: Python's order of updates would matter */
            if (class_at(classes, j, nclasses) == c)
                Py_RETURN_FALSE;
        if (!ok)
            Py_RETURN_FALSE;
    }
    PyObject *so = PyFloat_FromDouble(s), *eo = PyFloat_FromDouble(e);
    if (so == NULL || eo == NULL) {
        Py_XDECREF(so);
        Py_XDECREF(eo);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t c = class_at(classes, k, nclasses);
        if (e > PyFloat_AS_DOUBLE(PyList_GET_ITEM(latest, c))) {
            Py_INCREF(eo);
            if (PyList_SetItem(latest, c, eo) < 0)
                goto fail;
        }
        if (PyList_Append(PyList_GET_ITEM(starts_of, c), so) < 0 || PyList_Append(PyList_GET_ITEM(ends_of, c), eo) < 0)
            goto fail;
    }
    Py_DECREF(so);
    Py_DECREF(eo);
    Py_RETURN_TRUE;
fail:
    Py_DECREF(so);
    Py_DECREF(eo);
    return NULL;
}

/* The classes DmaEngines._classes keeps for ``groups`` in state[0] (its _classes_of) when their ends
 * ascend, else NULL (not kept yet, nested, or not a tuple: the Python code decides). */
static PyObject *kept_classes(PyObject *state, PyObject *groups)
{
    if (!PyTuple_CheckExact(state) || PyTuple_GET_SIZE(state) != 5 || !PyTuple_CheckExact(groups)
            || !PyDict_CheckExact(PyTuple_GET_ITEM(state, 0)))
        return NULL;
    PyObject *found = PyDict_GetItemWithError(PyTuple_GET_ITEM(state, 0), groups);
    if (found == NULL) {
        PyErr_Clear();
        return NULL;
    }
    if (!PyTuple_CheckExact(found) || PyTuple_GET_SIZE(found) != 2 || PyTuple_GET_ITEM(found, 1) != Py_True
            || !PyList_CheckExact(PyTuple_GET_ITEM(found, 0)))
        return NULL;
    return PyTuple_GET_ITEM(found, 0);
}

/* earliest_for(state, groups, t, d) -> float | None: DmaEngines.earliest for groups whose classes are
 * kept and ascend; state = (_classes_of, _starts, _ends, _floor, _latest). */
static PyObject *earliest_for(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4)
        Py_RETURN_NONE;
    PyObject *classes = kept_classes(args[0], args[1]);
    if (classes == NULL)
        Py_RETURN_NONE;
    PyObject *state = args[0];
    PyObject *a[7] = {classes, PyTuple_GET_ITEM(state, 1), PyTuple_GET_ITEM(state, 2), PyTuple_GET_ITEM(state, 3),
                      PyTuple_GET_ITEM(state, 4), args[2], args[3]};
    return earliest(self, a, 7);
}

/* reserve_for(state, groups, s, d, keep) -> bool: reserve_after for groups whose classes are kept and
 * ascend (False: nothing changed, the Python code reserves). */
static PyObject *reserve_for(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5)
        Py_RETURN_FALSE;
    PyObject *classes = kept_classes(args[0], args[1]);
    if (classes == NULL)
        Py_RETURN_FALSE;
    PyObject *state = args[0];
    PyObject *a[7] = {classes, PyTuple_GET_ITEM(state, 1), PyTuple_GET_ITEM(state, 2), PyTuple_GET_ITEM(state, 4),
                      args[2], args[3], args[4]};
    return reserve_after(self, a, 7);
}

static PyMethodDef METHODS[] = {
    {"earliest_for", (PyCFunction)(void (*)(void))earliest_for, METH_FASTCALL,
     "earliest_for(state, groups, t, d) -> float | None"},
    {"reserve_for", (PyCFunction)(void (*)(void))reserve_for, METH_FASTCALL,
     "reserve_for(state, groups, s, d, keep) -> bool"},
    {"earliest", (PyCFunction)(void (*)(void))earliest, METH_FASTCALL,
     "earliest(classes, starts_of, ends_of, floor, latest, t, d) -> float | None"},
    {"reserve_after", (PyCFunction)(void (*)(void))reserve_after, METH_FASTCALL,
     "reserve_after(classes, starts_of, ends_of, latest, s, d, keep) -> bool"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "npusim.nki._native_dma", NULL, -1, METHODS};

PyMODINIT_FUNC PyInit__native_dma(void)
{
    return PyModule_Create(&MODULE);
}
