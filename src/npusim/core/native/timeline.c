/* The timeline's data-order hot path in C (npusim.core.timeline_native loads it; the pure-Python
   methods of timeline.py are the reference and the fallback).

   It works on the very objects the Python code uses (MemoryLog, its access lists, bucket lists and
   ``wide``, the 8-field access lists of access_log.py, footprints' lo/hi/lane_lo/lane_hi), so race
   checks, ``unordered``, pruning and the archive keep running in Python over the same state.

   Every comparison is the one Python makes: two exact floats compare as C doubles with the same test
   (< <= >), two exact ints that fit in a long long as C integers, anything else through
   PyObject_RichCompareBool. A time found is returned as the object Python would return (the same
   float object), so nanosecond results are identical to the bit. Engine names compare as Python's !=
   (identity first, then the string's contents).

   TimelineCore is the base type of timeline.Timeline: its methods ``_dependencies_end`` and
   ``_remember`` are looked up on the instance like the Python methods they replace. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* access_log.py's constants and the Python helpers the rare paths call (configure() sets them) */
static Py_ssize_t BUCKET_SPAN = 8, INDEX_AFTER = 24, FRESH = 34;
static PyObject *MemoryLogType, *build_index_fn, *append_fn;

static PyObject *s_logs, *s_memory, *s_id, *s_horizon, *s_archive_for, *s_engine, *s_write_end, *s_lo, *s_hi,
    *s_lane_lo, *s_lane_hi, *s_indexed, *s_shift, *s_accesses, *s_wide, *s_buckets, *s_ends_max,
    *s_archived_end, *s_PRUNE_AT, *s_has_sync, *s_prune_at, *s_prune, *s_FRESH;

/* ---- Python's comparisons ---- */

/* a op b (Py_LT, Py_LE, Py_GT) as Python evaluates it: 1, 0, or -1 with an exception */
static int compare(PyObject *a, PyObject *b, int op)
{
    if (PyFloat_CheckExact(a) && PyFloat_CheckExact(b)) {
        double x = PyFloat_AS_DOUBLE(a), y = PyFloat_AS_DOUBLE(b);
        return op == Py_LT ? x < y : op == Py_LE ? x <= y : x > y;
    }
    if (PyLong_CheckExact(a) && PyLong_CheckExact(b)) {
        int oa, ob;
        long long x = PyLong_AsLongLongAndOverflow(a, &oa), y = PyLong_AsLongLongAndOverflow(b, &ob);
        if (!oa && !ob && !PyErr_Occurred())
            return op == Py_LT ? x < y : op == Py_LE ? x <= y : x > y;
        PyErr_Clear();
    }
    return PyObject_RichCompareBool(a, b, op);
}

/* a != b as Python evaluates it (engine names: str, identity first) */
static int not_equal(PyObject *a, PyObject *b)
{
    if (a == b && PyUnicode_CheckExact(a))
        return 0;
    if (PyUnicode_CheckExact(a) && PyUnicode_CheckExact(b))
        return PyUnicode_Compare(a, b) != 0;
    PyObject *r = PyObject_RichCompare(a, b, Py_NE);
    if (r == NULL)
        return -1;
    int v = PyObject_IsTrue(r);
    Py_DECREF(r);
    return v;
}

/* a == b as Python evaluates it */
static int equal(PyObject *a, PyObject *b)
{
    if (a == b && PyUnicode_CheckExact(a))
        return 1;
    if (PyUnicode_CheckExact(a) && PyUnicode_CheckExact(b))
        return PyUnicode_Compare(a, b) == 0;
    PyObject *r = PyObject_RichCompare(a, b, Py_EQ);
    if (r == NULL)
        return -1;
    int v = PyObject_IsTrue(r);
    Py_DECREF(r);
    return v;
}

static inline int truth(PyObject *o)
{
    if (o == Py_True)
        return 1;
    if (o == Py_False || o == Py_None)
        return 0;
    return PyObject_IsTrue(o);
}

/* an attribute that must be a list */
static PyObject *get_list(PyObject *o, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(o, name);
    if (v != NULL && !PyList_Check(v)) {
        PyErr_Format(PyExc_TypeError, "timeline: %R must be a list, not %.100s", name, Py_TYPE(v)->tp_name);
        Py_CLEAR(v);
    }
    return v;
}

/* an integer attribute (anything with __index__) as a long long */
static int get_ll(PyObject *o, PyObject *name, long long *out)
{
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL)
        return -1;
    PyObject *i = PyNumber_Index(v);
    Py_DECREF(v);
    if (i == NULL)
        return -1;
    *out = PyLong_AsLongLong(i);
    Py_DECREF(i);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* x >> shift with Python's floor semantics */
static inline long long shr(long long x, long long shift)
{
    if (shift >= 63)
        return x < 0 ? -1 : 0;
    return x >= 0 ? x >> shift : -((-x - 1) >> shift) - 1;
}

/* ---- the query: one footprint's box ---- */

typedef struct {
    PyObject *lo, *hi, *lane_lo, *lane_hi;      /* owned */
} Box;

static int box_get(Box *q, PyObject *fp)
{
    q->lo = q->hi = q->lane_lo = q->lane_hi = NULL;
    if (!(q->lo = PyObject_GetAttr(fp, s_lo)) || !(q->hi = PyObject_GetAttr(fp, s_hi)) ||
        !(q->lane_lo = PyObject_GetAttr(fp, s_lane_lo)) || !(q->lane_hi = PyObject_GetAttr(fp, s_lane_hi)))
        return -1;
    return 0;
}

static void box_clear(Box *q)
{
    Py_CLEAR(q->lo);
    Py_CLEAR(q->hi);
    Py_CLEAR(q->lane_lo);
    Py_CLEAR(q->lane_hi);
}

/* lo < o.hi and o.lo < hi and lane_lo < o.lane_hi and o.lane_lo < lane_hi (Footprint.overlaps' box test,
   evaluated in the same order, stopping at the first false) */
static int box_overlaps(Box *q, PyObject *o)
{
    static PyObject **names[4] = {&s_hi, &s_lo, &s_lane_hi, &s_lane_lo};
    for (int k = 0; k < 4; k++) {
        PyObject *v = PyObject_GetAttr(o, *names[k]);
        if (v == NULL)
            return -1;
        int r;
        switch (k) {
        case 0: r = compare(q->lo, v, Py_LT); break;
        case 1: r = compare(v, q->hi, Py_LT); break;
        case 2: r = compare(q->lane_lo, v, Py_LT); break;
        default: r = compare(v, q->lane_hi, Py_LT); break;
        }
        Py_DECREF(v);
        if (r != 1)
            return r;
    }
    return 1;
}

/* An access conflicts and raises t: acc[0] > t and (is_write or acc[1]) and acc[2] != engine
   [and acc[7] when alive is set] and the boxes overlap. *t (owned) becomes acc[0] then. */
static int consider(PyObject *acc, Box *q, int is_write, PyObject *engine, PyObject **t, int alive)
{
    if (!PyList_Check(acc) || PyList_GET_SIZE(acc) < 8) {
        PyErr_SetString(PyExc_TypeError, "timeline: a remembered access must be a list of 8 fields");
        return -1;
    }
    /* the fields used, held: a comparison of objects other than floats and ints may run Python code */
    PyObject *end = Py_NewRef(PyList_GET_ITEM(acc, 0)), *write = Py_NewRef(PyList_GET_ITEM(acc, 1)),
             *eng = Py_NewRef(PyList_GET_ITEM(acc, 2)), *o = Py_NewRef(PyList_GET_ITEM(acc, 4)),
             *live = Py_NewRef(PyList_GET_ITEM(acc, 7));
    int r;
    if ((r = compare(end, *t, Py_GT)) != 1)
        goto done;
    if (!is_write && (r = truth(write)) != 1)
        goto done;
    if ((r = not_equal(eng, engine)) != 1)
        goto done;
    if (alive && (r = truth(live)) != 1)
        goto done;
    if ((r = box_overlaps(q, o)) != 1)
        goto done;
    Py_SETREF(*t, Py_NewRef(end));
done:
    Py_DECREF(end);
    Py_DECREF(write);
    Py_DECREF(eng);
    Py_DECREF(o);
    Py_DECREF(live);
    return r < 0 ? -1 : 0;
}

/* access_log.scan: a bucket (or wide) newest first, stopping at the first prefix max <= t */
static int scan_bucket(PyObject *bucket, Box *q, int is_write, PyObject *engine, PyObject **t)
{
    Py_ssize_t i = PyList_GET_SIZE(bucket) - 2;
    while (i > 1) {
        if (i + 1 >= PyList_GET_SIZE(bucket)) {
            PyErr_SetString(PyExc_RuntimeError, "timeline: a bucket changed during a scan");
            return -1;
        }
        PyObject *m = PyList_GET_ITEM(bucket, i);
        Py_INCREF(m);
        int r = compare(m, *t, Py_LE);
        Py_DECREF(m);
        if (r < 0)
            return -1;
        if (r)
            break;
        PyObject *acc = PyList_GET_ITEM(bucket, i + 1);
        if (consider(acc, q, is_write, engine, t, 1) < 0)
            return -1;
        i -= 2;
    }
    return 0;
}

/* access_log.scan_all: the whole log, oldest first */
static int scan_all(PyObject *accesses, Box *q, int is_write, PyObject *engine, PyObject **t)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(accesses); i++)
        if (consider(PyList_GET_ITEM(accesses, i), q, is_write, engine, t, 0) < 0)
            return -1;
    return 0;
}

/* The indexed branch of Timeline._dependencies_end for one footprint (log.indexed) */
static int indexed_end(PyObject *log, PyObject *fp, Box *q, int is_write, PyObject *engine, PyObject **t)
{
    long long shift, lo, hi;
    if (get_ll(log, s_shift, &shift) < 0 || get_ll(fp, s_lo, &lo) < 0 || get_ll(fp, s_hi, &hi) < 0)
        return -1;
    long long b = shr(lo, shift), last = shr(hi - 1, shift);
    int rc = -1;
    PyObject *wide = NULL, *buckets = NULL;
    if (hi <= lo || last - b >= BUCKET_SPAN) {
        PyObject *accesses = get_list(log, s_accesses);
        if (accesses == NULL)
            return -1;
        rc = scan_all(accesses, q, is_write, engine, t);
        Py_DECREF(accesses);
        return rc;
    }
    if (!(wide = get_list(log, s_wide)))
        goto done;
    if (PyList_GET_SIZE(wide) > 2 && scan_bucket(wide, q, is_write, engine, t) < 0)
        goto done;
    if (!(buckets = PyObject_GetAttr(log, s_buckets)))
        goto done;
    if (!PyDict_Check(buckets)) {
        PyErr_SetString(PyExc_TypeError, "timeline: log.buckets must be a dict");
        goto done;
    }
    for (; b <= last; b++) {
        PyObject *key = PyLong_FromLongLong(b);
        if (key == NULL)
            goto done;
        PyObject *bucket = PyDict_GetItemWithError(buckets, key);
        Py_DECREF(key);
        if (bucket == NULL) {
            if (PyErr_Occurred())
                goto done;
            continue;
        }
        if (!PyList_Check(bucket) || PyList_GET_SIZE(bucket) < 2) {
            PyErr_SetString(PyExc_TypeError, "timeline: a bucket must be a list [trigger, max, ...]");
            goto done;
        }
        Py_INCREF(bucket);
        PyObject *m = PyList_GET_ITEM(bucket, 1);
        Py_INCREF(m);
        int r = compare(m, *t, Py_LE);
        Py_DECREF(m);
        if (r == 0)
            r = scan_bucket(bucket, q, is_write, engine, t);
        Py_DECREF(bucket);
        if (r < 0)
            goto done;
    }
    rc = 0;
done:
    Py_XDECREF(wide);
    Py_XDECREF(buckets);
    return rc;
}

/* The unindexed branch: the whole log newest first until its prefix max of ends says nothing older can
   raise t; a scan longer than INDEX_AFTER builds the log's index. */
static int unindexed_end(PyObject *log, Box *q, int is_write, PyObject *engine, PyObject **t)
{
    PyObject *accesses = get_list(log, s_accesses), *ends_max = NULL;
    int rc = -1;
    if (accesses == NULL || !(ends_max = get_list(log, s_ends_max)))
        goto done;
    Py_ssize_t n = PyList_GET_SIZE(accesses), i = n;
    while (i) {
        i -= 1;
        if (i >= PyList_GET_SIZE(ends_max) || i >= PyList_GET_SIZE(accesses)) {
            PyErr_SetString(PyExc_IndexError, "timeline: log.ends_max and log.accesses differ in length");
            goto done;
        }
        PyObject *m = PyList_GET_ITEM(ends_max, i);
        Py_INCREF(m);
        int r = compare(m, *t, Py_LE);
        Py_DECREF(m);
        if (r < 0)
            goto done;
        if (r)
            break;
        if (consider(PyList_GET_ITEM(accesses, i), q, is_write, engine, t, 0) < 0)
            goto done;
    }
    if (n - i > INDEX_AFTER) {
        PyObject *res = PyObject_CallOneArg(build_index_fn, log);
        if (res == NULL)
            goto done;
        Py_DECREF(res);
    }
    rc = 0;
done:
    Py_XDECREF(accesses);
    Py_XDECREF(ends_max);
    return rc;
}

/* The log of fp's memory in logs (a new reference), or NULL with no exception when there is none */
static PyObject *log_of(PyObject *logs, PyObject *fp)
{
    PyObject *mem = PyObject_GetAttr(fp, s_memory);
    if (mem == NULL)
        return NULL;
    PyObject *mid = PyObject_GetAttr(mem, s_id);
    Py_DECREF(mem);
    if (mid == NULL)
        return NULL;
    PyObject *log = PyDict_GetItemWithError(logs, mid);
    Py_XINCREF(log);
    Py_DECREF(mid);
    return log;
}

/* One footprint of Timeline._dependencies_end */
static int footprint_end(PyObject *self, PyObject *logs, PyObject *fp, int is_write, PyObject *engine,
                         PyObject **t)
{
    PyObject *log = log_of(logs, fp), *v = NULL;
    Box q = {NULL, NULL, NULL, NULL};
    int rc = -1, r;
    if (log == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (!(v = PyObject_GetAttr(log, s_horizon)) || (r = compare(v, *t, Py_GT)) < 0)
        goto done;
    if (r)
        Py_SETREF(*t, Py_NewRef(v));
    Py_CLEAR(v);
    /* rare: a late first use of an engine */
    if (!(v = PyObject_GetAttr(log, s_archive_for)) || (r = truth(v)) < 0)
        goto done;
    if (r && (r = PySequence_Contains(v, engine)) < 0)
        goto done;
    Py_CLEAR(v);
    if (r) {
        PyObject *res = PyObject_CallMethodObjArgs(self, s_archived_end, log, fp, is_write ? Py_True : Py_False,
                                                   engine, *t, NULL);
        if (res == NULL)
            goto done;
        Py_SETREF(*t, res);
    }
    /* one engine's accesses only: program order covers them; a read meets only writes */
    if (!(v = PyObject_GetAttr(log, s_engine)) || (r = equal(v, engine)) < 0)
        goto done;
    Py_CLEAR(v);
    if (r) {
        rc = 0;
        goto done;
    }
    if (!is_write) {
        if (!(v = PyObject_GetAttr(log, s_write_end)) || (r = compare(v, *t, Py_LE)) < 0)
            goto done;
        Py_CLEAR(v);
        if (r) {
            rc = 0;
            goto done;
        }
    }
    if (box_get(&q, fp) < 0)
        goto done;
    if (!(v = PyObject_GetAttr(log, s_indexed)) || (r = truth(v)) < 0)
        goto done;
    Py_CLEAR(v);
    rc = r ? indexed_end(log, fp, &q, is_write, engine, t) : unindexed_end(log, &q, is_write, engine, t);
done:
    Py_XDECREF(v);
    Py_DECREF(log);
    box_clear(&q);
    return rc;
}

/* Timeline._dependencies_end(reads, writes, engine, t=0.0) */
static PyObject *dependencies_end(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 3 || nargs > 4) {
        PyErr_SetString(PyExc_TypeError, "_dependencies_end(reads, writes, engine, t=0.0)");
        return NULL;
    }
    PyObject *logs = PyObject_GetAttr(self, s_logs);
    if (logs == NULL)
        return NULL;
    if (!PyDict_Check(logs)) {
        Py_DECREF(logs);
        PyErr_SetString(PyExc_TypeError, "timeline: _logs must be a dict");
        return NULL;
    }
    PyObject *engine = args[2];
    PyObject *t = nargs == 4 ? Py_NewRef(args[3]) : PyFloat_FromDouble(0.0);
    for (int is_write = 0; is_write < 2 && t != NULL; is_write++) {
        PyObject *fps = PySequence_Fast(args[is_write], "reads and writes must be iterables of footprints");
        if (fps == NULL) {
            Py_CLEAR(t);
            break;
        }
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(fps); k++) {
            if (footprint_end(self, logs, PySequence_Fast_GET_ITEM(fps, k), is_write, engine, &t) < 0) {
                Py_CLEAR(t);
                break;
            }
        }
        Py_DECREF(fps);
    }
    Py_DECREF(logs);
    return t;
}

/* ---- remembering ---- */

/* access_log.index_add, inlined as Timeline._remember has it */
static int index_add(PyObject *log, PyObject *fp, PyObject *acc, PyObject *end)
{
    long long shift, lo, hi;
    if (get_ll(log, s_shift, &shift) < 0 || get_ll(fp, s_lo, &lo) < 0 || get_ll(fp, s_hi, &hi) < 0)
        return -1;
    long long b = shr(lo, shift), last = shr(hi - 1, shift);
    PyObject *buckets = NULL, *res;
    int rc = -1;
    if (hi <= lo || last - b >= BUCKET_SPAN) {
        PyObject *wide = PyObject_GetAttr(log, s_wide);
        if (wide == NULL)
            return -1;
        res = PyObject_CallFunctionObjArgs(append_fn, wide, acc, NULL);
        Py_DECREF(wide);
        Py_XDECREF(res);
        return res == NULL ? -1 : 0;
    }
    if (!(buckets = PyObject_GetAttr(log, s_buckets)))
        return -1;
    if (!PyDict_Check(buckets)) {
        PyErr_SetString(PyExc_TypeError, "timeline: log.buckets must be a dict");
        goto done;
    }
    for (; b <= last; b++) {
        PyObject *key = PyLong_FromLongLong(b);
        if (key == NULL)
            goto done;
        PyObject *bucket = PyDict_GetItemWithError(buckets, key);
        if (bucket == NULL) {
            if (PyErr_Occurred()) {
                Py_DECREF(key);
                goto done;
            }
            PyObject *fresh = PyLong_FromSsize_t(FRESH);
            PyObject *nb = fresh ? PyList_New(4) : NULL;
            if (nb == NULL) {
                Py_XDECREF(fresh);
                Py_DECREF(key);
                goto done;
            }
            PyList_SET_ITEM(nb, 0, fresh);
            PyList_SET_ITEM(nb, 1, Py_NewRef(end));
            PyList_SET_ITEM(nb, 2, Py_NewRef(end));
            PyList_SET_ITEM(nb, 3, Py_NewRef(acc));
            int r = PyDict_SetItem(buckets, key, nb);
            Py_DECREF(nb);
            Py_DECREF(key);
            if (r < 0)
                goto done;
            continue;
        }
        Py_DECREF(key);
        if (!PyList_Check(bucket) || PyList_GET_SIZE(bucket) < 2) {
            PyErr_SetString(PyExc_TypeError, "timeline: a bucket must be a list [trigger, max, ...]");
            goto done;
        }
        Py_INCREF(bucket);
        PyObject *size = PyLong_FromSsize_t(PyList_GET_SIZE(bucket));
        int r = size ? compare(size, PyList_GET_ITEM(bucket, 0), Py_LT) : -1;
        Py_XDECREF(size);
        if (r == 1) {       /* append's common case (a bucket at rest is never empty) */
            PyObject *m = Py_NewRef(PyList_GET_ITEM(bucket, 1));
            r = compare(end, m, Py_GT);
            if (r == 1) {
                Py_SETREF(m, Py_NewRef(end));
                r = PyList_SetItem(bucket, 1, Py_NewRef(end));
            }
            if (r >= 0)
                r = PyList_Append(bucket, m);
            if (r >= 0)
                r = PyList_Append(bucket, acc);
            Py_DECREF(m);
        } else if (r == 0) {    /* drops the bucket's dead first */
            res = PyObject_CallFunctionObjArgs(append_fn, bucket, acc, NULL);
            r = res == NULL ? -1 : 0;
            Py_XDECREF(res);
        }
        Py_DECREF(bucket);
        if (r < 0)
            goto done;
    }
    rc = 0;
done:
    Py_XDECREF(buckets);
    return rc;
}

static int set_attr_if(PyObject *o, PyObject *name, PyObject *v)
{
    return PyObject_SetAttr(o, name, v);
}

/* One footprint of Timeline._remember */
static int remember_one(PyObject *self, PyObject *logs, PyObject *fp, int is_write, PyObject *end,
                        PyObject *engine, PyObject *seq, PyObject *ev, PyObject *sync, int sync_true)
{
    PyObject *mem = NULL, *mid = NULL, *log = NULL, *accesses = NULL, *acc = NULL, *v = NULL;
    int rc = -1, r;
    if (!(mem = PyObject_GetAttr(fp, s_memory)) || !(mid = PyObject_GetAttr(mem, s_id)))
        goto done;
    log = PyDict_GetItemWithError(logs, mid);
    if (log == NULL) {
        if (PyErr_Occurred())
            goto done;
        PyObject *prune_at = PyObject_GetAttr(self, s_PRUNE_AT);
        if (prune_at == NULL)
            goto done;
        log = PyObject_CallOneArg(MemoryLogType, prune_at);
        Py_DECREF(prune_at);
        if (log == NULL || PyDict_SetItem(logs, mid, log) < 0)
            goto done;
    } else {
        Py_INCREF(log);
    }
    if (!(accesses = get_list(log, s_accesses)))
        goto done;
    if (PyList_GET_SIZE(accesses) == 0) {
        if (set_attr_if(log, s_engine, engine) < 0)
            goto done;
    } else {
        if (!(v = PyObject_GetAttr(log, s_engine)) || (r = not_equal(v, engine)) < 0)
            goto done;
        Py_CLEAR(v);
        if (r && set_attr_if(log, s_engine, Py_None) < 0)
            goto done;
    }
    if (!(acc = PyList_New(8)))
        goto done;
    PyList_SET_ITEM(acc, 0, Py_NewRef(end));
    PyList_SET_ITEM(acc, 1, Py_NewRef(is_write ? Py_True : Py_False));
    PyList_SET_ITEM(acc, 2, Py_NewRef(engine));
    PyList_SET_ITEM(acc, 3, Py_NewRef(seq));
    PyList_SET_ITEM(acc, 4, Py_NewRef(fp));
    PyList_SET_ITEM(acc, 5, Py_NewRef(ev));
    PyList_SET_ITEM(acc, 6, Py_NewRef(sync));
    PyList_SET_ITEM(acc, 7, Py_NewRef(Py_True));
    if (PyList_Append(accesses, acc) < 0)
        goto done;
    if (sync_true && set_attr_if(log, s_has_sync, Py_True) < 0)
        goto done;
    if (is_write) {
        if (!(v = PyObject_GetAttr(log, s_write_end)) || (r = compare(end, v, Py_GT)) < 0)
            goto done;
        Py_CLEAR(v);
        if (r && set_attr_if(log, s_write_end, end) < 0)
            goto done;
    }
    if (!(v = PyObject_GetAttr(log, s_indexed)) || (r = truth(v)) < 0)
        goto done;
    Py_CLEAR(v);
    if (r) {
        if (index_add(log, fp, acc, end) < 0)
            goto done;
    } else {
        if (!(v = get_list(log, s_ends_max)))
            goto done;
        Py_ssize_t n = PyList_GET_SIZE(v);
        PyObject *m = end;
        if (n) {
            PyObject *last = Py_NewRef(PyList_GET_ITEM(v, n - 1));
            r = compare(end, last, Py_GT);
            Py_DECREF(last);
            if (r < 0)
                goto done;
            if (!r)
                m = PyList_GET_ITEM(v, n - 1);
        }
        if (PyList_Append(v, m) < 0)
            goto done;
        Py_CLEAR(v);
    }
    if (!(v = PyObject_GetAttr(log, s_prune_at)))
        goto done;
    PyObject *len = PyLong_FromSsize_t(PyList_GET_SIZE(accesses));
    r = len ? compare(len, v, Py_GT) : -1;
    Py_XDECREF(len);
    Py_CLEAR(v);
    if (r < 0)
        goto done;
    if (r) {
        PyObject *res = PyObject_CallMethodOneArg(self, s_prune, log);
        if (res == NULL)
            goto done;
        Py_DECREF(res);
    }
    rc = 0;
done:
    Py_XDECREF(mem);
    Py_XDECREF(mid);
    Py_XDECREF(log);
    Py_XDECREF(accesses);
    Py_XDECREF(acc);
    Py_XDECREF(v);
    return rc;
}

/* Timeline._remember(reads, writes, end, engine, seq, ev, sync) */
static PyObject *remember(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "_remember(reads, writes, end, engine, seq, ev, sync)");
        return NULL;
    }
    int sync_true = truth(args[6]);
    if (sync_true < 0)
        return NULL;
    PyObject *logs = PyObject_GetAttr(self, s_logs);
    if (logs == NULL)
        return NULL;
    if (!PyDict_Check(logs)) {
        Py_DECREF(logs);
        PyErr_SetString(PyExc_TypeError, "timeline: _logs must be a dict");
        return NULL;
    }
    int rc = 0;
    for (int is_write = 0; is_write < 2 && rc == 0; is_write++) {
        PyObject *fps = PySequence_Fast(args[is_write], "reads and writes must be iterables of footprints");
        if (fps == NULL) {
            rc = -1;
            break;
        }
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(fps) && rc == 0; k++)
            rc = remember_one(self, logs, PySequence_Fast_GET_ITEM(fps, k), is_write, args[2], args[3], args[4],
                              args[5], args[6], sync_true);
        Py_DECREF(fps);
    }
    Py_DECREF(logs);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ---- the module ---- */

static PyMethodDef core_methods[] = {
    {"_dependencies_end", (PyCFunction)(void (*)(void))dependencies_end, METH_FASTCALL,
     "The later of t and the end of every remembered access that data order waits for (C)."},
    {"_remember", (PyCFunction)(void (*)(void))remember, METH_FASTCALL,
     "Remember an instruction's accesses (C)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TimelineCore = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npusim.core._timeline_c.TimelineCore",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The C methods of timeline.Timeline (its base type when the extension is built).",
    .tp_methods = core_methods,
    .tp_new = PyType_GenericNew,
};

/* configure(MemoryLog, build_index, append, BUCKET_SPAN, INDEX_AFTER, FRESH) */
static PyObject *configure(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "configure(MemoryLog, build_index, append, BUCKET_SPAN, INDEX_AFTER, FRESH)");
        return NULL;
    }
    Py_ssize_t span = PyLong_AsSsize_t(args[3]), after = PyLong_AsSsize_t(args[4]), fresh = PyLong_AsSsize_t(args[5]);
    if (PyErr_Occurred())
        return NULL;
    Py_XSETREF(MemoryLogType, Py_NewRef(args[0]));
    Py_XSETREF(build_index_fn, Py_NewRef(args[1]));
    Py_XSETREF(append_fn, Py_NewRef(args[2]));
    BUCKET_SPAN = span;
    INDEX_AFTER = after;
    FRESH = fresh;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"configure", (PyCFunction)(void (*)(void))configure, METH_FASTCALL,
     "Give the module access_log.py's MemoryLog, build_index, append and constants."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_timeline_c", "The timeline's data-order hot path in C.", -1, module_methods,
};

#define INTERN(var, text) if (!(var = PyUnicode_InternFromString(text))) return NULL

PyMODINIT_FUNC PyInit__timeline_c(void)
{
    INTERN(s_logs, "_logs"); INTERN(s_memory, "memory"); INTERN(s_id, "id"); INTERN(s_horizon, "horizon");
    INTERN(s_archive_for, "archive_for"); INTERN(s_engine, "engine"); INTERN(s_write_end, "write_end");
    INTERN(s_lo, "lo"); INTERN(s_hi, "hi"); INTERN(s_lane_lo, "lane_lo"); INTERN(s_lane_hi, "lane_hi");
    INTERN(s_indexed, "indexed"); INTERN(s_shift, "shift"); INTERN(s_accesses, "accesses");
    INTERN(s_wide, "wide"); INTERN(s_buckets, "buckets"); INTERN(s_ends_max, "ends_max");
    INTERN(s_archived_end, "_archived_end"); INTERN(s_PRUNE_AT, "PRUNE_AT"); INTERN(s_has_sync, "has_sync");
    INTERN(s_prune_at, "prune_at"); INTERN(s_prune, "_prune"); INTERN(s_FRESH, "FRESH");
    if (PyType_Ready(&TimelineCore) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    Py_INCREF(&TimelineCore);
    if (PyModule_AddObject(m, "TimelineCore", (PyObject *)&TimelineCore) < 0) {
        Py_DECREF(&TimelineCore);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
