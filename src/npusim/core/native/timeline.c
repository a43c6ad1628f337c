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
#include <structmember.h>

/* access_log.py's constants and the Python helpers the rare paths call (configure() sets them) */
static Py_ssize_t BUCKET_SPAN = 8, INDEX_AFTER = 24, FRESH = 34;
static PyObject *MemoryLogType, *build_index_fn, *append_fn;
/* what place needs from Python (configure() sets them): trace.Event, its slot descriptors in field order,
   trace._active, timeline.py's globals (its ``options`` and the caller-source caches, read on each call),
   os.path.basename */
static PyObject *EventType, *event_slots, *active_traces, *timeline_globals, *basename_fn;
static PyObject *float_0, *float_1e9, *long_0, *long_1, *empty_tuple, *str_empty, *str_data, *str_sync, *str_none;

static PyObject *s_logs, *s_memory, *s_id, *s_horizon, *s_archive_for, *s_engine, *s_write_end, *s_lo, *s_hi,
    *s_lane_lo, *s_lane_hi, *s_indexed, *s_shift, *s_accesses, *s_wide, *s_buckets, *s_ends_max,
    *s_archived_end, *s_PRUNE_AT, *s_has_sync, *s_prune_at, *s_prune, *s_FRESH, *s_engines, *s_free_ns,
    *s_busy_ns, *s_count, *s_seq, *s_clock, *s_freq_hz, *s_core, *s_trace, *s_events, *s_used, *s_add_event,
    *s_check_races, *s_record_source, *s_check_races_m, *s_SOURCE_OVERRIDE, *s_INSIDE, *s_BASENAMES,
    *s_PKG_DIR, *s_LINES, *s_LINES_CAP, *s_options;

/* ---- attributes ---- */

/* The address of o's __slots__ field `name` when Python's attribute access would go straight to it (the
   type's getattr is the generic one and finds a writable object member descriptor): reading it there
   is what the descriptor does. NULL otherwise. */
static inline PyObject **slot_addr(PyObject *o, PyObject *name)
{
    PyTypeObject *tp = Py_TYPE(o);
    if (tp->tp_getattro != PyObject_GenericGetAttr)
        return NULL;
    PyObject *d = _PyType_Lookup(tp, name);
    if (d == NULL || !Py_IS_TYPE(d, &PyMemberDescr_Type))
        return NULL;
    PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
    if (m->type != T_OBJECT_EX || (m->flags & READONLY))
        return NULL;
    return (PyObject **)((char *)o + m->offset);
}

/* What slot_addr found for one type, remembered at one call site: valid while the type's version tag
   is (any change to the type or its bases gives it a new tag). off < 0: no plain slot. A call site
   whose name varies (a helper taking the name) keeps one entry per (type, name) it meets. */
typedef struct {
    PyTypeObject *type;
    PyObject *name;         /* one of the module's interned names (held for the module's life) */
    unsigned int tag;
    Py_ssize_t off;
} SlotMemo;

#define MEMO_WAYS 4

static PyObject **slot_addr_slow(PyObject *o, PyObject *name, SlotMemo *memo)
{
    PyTypeObject *tp = Py_TYPE(o);
    int valid = PyType_HasFeature(tp, Py_TPFLAGS_VALID_VERSION_TAG);
    if (valid)
        for (int k = 0; k < MEMO_WAYS; k++)
            if (memo[k].type == tp && memo[k].name == name && memo[k].tag == tp->tp_version_tag)
                return memo[k].off < 0 ? NULL : (PyObject **)((char *)o + memo[k].off);
    PyObject **a = slot_addr(o, name);      /* (assigns the type a valid tag) */
    if (PyType_HasFeature(tp, Py_TPFLAGS_VALID_VERSION_TAG)) {
        for (int k = MEMO_WAYS - 1; k > 0; k--)
            memo[k] = memo[k - 1];
        memo[0].type = tp;
        memo[0].name = name;
        memo[0].tag = tp->tp_version_tag;
        memo[0].off = a ? (Py_ssize_t)((char *)a - (char *)o) : -1;
    }
    return a;
}

/* slot_addr_slow with its common case inlined: the call site's first entry is o's type, still valid */
static inline __attribute__((always_inline)) PyObject **slot_addr_memo(PyObject *o, PyObject *name, SlotMemo *memo)
{
    PyTypeObject *tp = Py_TYPE(o);
    if (memo[0].type == tp && memo[0].name == name && memo[0].tag == tp->tp_version_tag &&
            PyType_HasFeature(tp, Py_TPFLAGS_VALID_VERSION_TAG))
        return memo[0].off < 0 ? NULL : (PyObject **)((char *)o + memo[0].off);
    return slot_addr_slow(o, name, memo);
}

/* o.name (a new reference), through the slot when there is one */
static inline __attribute__((always_inline)) PyObject *attr_memo(PyObject *o, PyObject *name, SlotMemo *memo)
{
    PyObject **a = slot_addr_memo(o, name, memo);
    if (a != NULL && *a != NULL)
        return Py_NewRef(*a);
    return PyObject_GetAttr(o, name);     /* also raises the AttributeError of an unset slot */
}

/* attr_memo with a memo of its own at each call site */
#define attr(o, name) ({ static SlotMemo memo_[MEMO_WAYS]; attr_memo((o), (name), memo_); })

/* o.name = v, through the slot when there is one and setattr is the generic one */
static inline int set_attr_memo(PyObject *o, PyObject *name, PyObject *v, SlotMemo *memo)
{
    PyObject **a = Py_TYPE(o)->tp_setattro == PyObject_GenericSetAttr ? slot_addr_memo(o, name, memo) : NULL;
    if (a == NULL)
        return PyObject_SetAttr(o, name, v);
    Py_XSETREF(*a, Py_NewRef(v));
    return 0;
}

#define set_attr(o, name, v) ({ static SlotMemo memo_[MEMO_WAYS]; set_attr_memo((o), (name), (v), memo_); })

/* ---- the memory log's fields (access_log.MemoryLog derives from this type when the extension is built) ---- */

/* MemoryLog's fields in the instance: the C paths read and write them with a load and a store where
   attribute access would cost a type lookup per field. Python sees the same attributes (member
   descriptors): prune_at and shift are ints, indexed and has_sync bools, the rest objects. */
/* One bucket of the address index (access_log.py's flat list [trigger, newest max, max0, acc0, ...] in C):
   its entries oldest first, each an access (held) and the latest end of it and those before it. */
typedef struct {
    double max;
    PyObject *acc;
} Entry;

typedef struct {
    long long key;              /* its number (address >> shift) */
    Py_ssize_t n, cap;
    Py_ssize_t trigger;         /* the Python list length (2 + 2 * entries) that triggers dropping the dead */
    double newest;              /* the newest entry's max (the list's [1]) */
    Entry *e;
} Bucket;

typedef struct {
    PyObject_HEAD
    PyObject *accesses, *horizon, *engine, *archive, *archive_for, *archive_horizon, *ends_max, *write_end;
    Py_ssize_t prune_at, shift;
    char indexed, has_sync;
    /* the address index: buckets in the order made, a hash table of their positions by number, the wide
       list; `busy` while a scan walks an entry array (nothing may grow it then) */
    Bucket *bk, wide;
    Py_ssize_t nbk, capbk, *tab, tabcap;
    char no_index;      /* an end that is not a float was met: scans take the whole log (the same answer) */
    int busy;
} LogObject;

static PyMemberDef log_members[] = {
    {"accesses", T_OBJECT_EX, offsetof(LogObject, accesses), 0, NULL},
    {"horizon", T_OBJECT_EX, offsetof(LogObject, horizon), 0, NULL},
    {"engine", T_OBJECT_EX, offsetof(LogObject, engine), 0, NULL},
    {"archive", T_OBJECT_EX, offsetof(LogObject, archive), 0, NULL},
    {"archive_for", T_OBJECT_EX, offsetof(LogObject, archive_for), 0, NULL},
    {"archive_horizon", T_OBJECT_EX, offsetof(LogObject, archive_horizon), 0, NULL},
    {"ends_max", T_OBJECT_EX, offsetof(LogObject, ends_max), 0, NULL},
    {"write_end", T_OBJECT_EX, offsetof(LogObject, write_end), 0, NULL},
    {"prune_at", T_PYSSIZET, offsetof(LogObject, prune_at), 0, NULL},
    {"shift", T_PYSSIZET, offsetof(LogObject, shift), 0, NULL},
    {"indexed", T_BOOL, offsetof(LogObject, indexed), 0, NULL},
    {"has_sync", T_BOOL, offsetof(LogObject, has_sync), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

static void bucket_clear(Bucket *b)
{
    Entry *e = b->e;
    Py_ssize_t n = b->n;
    b->e = NULL;
    b->n = b->cap = 0;
    for (Py_ssize_t k = 0; k < n; k++)
        Py_DECREF(e[k].acc);
    PyMem_Free(e);
}

/* empty the address index (its buckets gone, wide empty) */
static void index_clear(LogObject *self)
{
    Bucket *bk = self->bk;
    Py_ssize_t nbk = self->nbk;
    self->bk = NULL;
    self->nbk = self->capbk = 0;
    PyMem_Free(self->tab);
    self->tab = NULL;
    self->tabcap = 0;
    for (Py_ssize_t b = 0; b < nbk; b++)
        bucket_clear(&bk[b]);
    PyMem_Free(bk);
    bucket_clear(&self->wide);
}

static int log_traverse(LogObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->accesses); Py_VISIT(self->horizon); Py_VISIT(self->engine); Py_VISIT(self->archive);
    Py_VISIT(self->archive_for); Py_VISIT(self->archive_horizon); Py_VISIT(self->ends_max); Py_VISIT(self->write_end);
    for (Py_ssize_t b = 0; b < self->nbk; b++)
        for (Py_ssize_t k = 0; k < self->bk[b].n; k++)
            Py_VISIT(self->bk[b].e[k].acc);
    for (Py_ssize_t k = 0; k < self->wide.n; k++)
        Py_VISIT(self->wide.e[k].acc);
    return 0;
}

static int log_clear(LogObject *self)
{
    Py_CLEAR(self->accesses); Py_CLEAR(self->horizon); Py_CLEAR(self->engine); Py_CLEAR(self->archive);
    Py_CLEAR(self->archive_for); Py_CLEAR(self->archive_horizon); Py_CLEAR(self->ends_max); Py_CLEAR(self->write_end);
    index_clear(self);
    return 0;
}

static void log_dealloc(LogObject *self)
{
    PyObject_GC_UnTrack(self);
    log_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject LogBase = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npusim.core._timeline_c.MemoryLogBase",
    .tp_basicsize = sizeof(LogObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The fields of access_log.MemoryLog, stored in the instance (its base type with the extension).",
    .tp_members = log_members,
    .tp_traverse = (traverseproc)log_traverse,
    .tp_clear = (inquiry)log_clear,
    .tp_dealloc = (destructor)log_dealloc,
    .tp_new = PyType_GenericNew,
};

/* `log` as a LogObject, or NULL with a TypeError (a log made by another class) */
static inline LogObject *as_log(PyObject *log)
{
    if (!PyObject_TypeCheck(log, &LogBase)) {
        PyErr_Format(PyExc_TypeError, "timeline: a memory log must be an access_log.MemoryLog, not %.100s",
                     Py_TYPE(log)->tp_name);
        return NULL;
    }
    return (LogObject *)log;
}

/* a log's object field (borrowed), or NULL with an AttributeError when it was deleted */
static inline PyObject *field(PyObject *v, const char *name)
{
    if (v == NULL)
        PyErr_Format(PyExc_AttributeError, "timeline: MemoryLog.%s is not set", name);
    return v;
}
#define LOG_GET(lg, f) field((lg)->f, #f)
/* lg->f = v (a new reference taken) */
#define LOG_SET(lg, f, v) Py_XSETREF((lg)->f, Py_NewRef(v))

/* ---- Python's comparisons ---- */

/* a op b (Py_LT, Py_LE, Py_GT) as Python evaluates it: 1, 0, or -1 with an exception */
static inline int compare(PyObject *a, PyObject *b, int op)
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

/* two exact str objects hold the same text (CPython keeps each string in its narrowest kind, so texts
   of different kinds or lengths differ) */
static inline int str_same(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    if (n != PyUnicode_GET_LENGTH(b) || PyUnicode_KIND(a) != PyUnicode_KIND(b))
        return 0;
    return memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * PyUnicode_KIND(a)) == 0;
}

/* a != b as Python evaluates it (engine names: str, identity first) */
static int not_equal(PyObject *a, PyObject *b)
{
    if (PyUnicode_CheckExact(a) && PyUnicode_CheckExact(b))
        return !str_same(a, b);
    /* None against a str or None: neither defines the comparison, so Python falls back to identity */
    if ((a == Py_None && (b == Py_None || PyUnicode_CheckExact(b))) || (b == Py_None && PyUnicode_CheckExact(a)))
        return a != b;
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
    if (PyUnicode_CheckExact(a) && PyUnicode_CheckExact(b))
        return str_same(a, b);
    if ((a == Py_None && (b == Py_None || PyUnicode_CheckExact(b))) || (b == Py_None && PyUnicode_CheckExact(a)))
        return a == b;
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
    if (!(q->lo = attr(fp, s_lo)) || !(q->hi = attr(fp, s_hi)) ||
        !(q->lane_lo = attr(fp, s_lane_lo)) || !(q->lane_hi = attr(fp, s_lane_hi)))
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
    /* one attr call site per field: each keeps its own memo */
    PyObject *v;
    int r;
#define BOX_TEST(name, expr) \
    if ((v = attr(o, name)) == NULL) \
        return -1; \
    r = (expr); \
    Py_DECREF(v); \
    if (r != 1) \
        return r;
    BOX_TEST(s_hi, compare(q->lo, v, Py_LT))
    BOX_TEST(s_lo, compare(v, q->hi, Py_LT))
    BOX_TEST(s_lane_hi, compare(q->lane_lo, v, Py_LT))
    BOX_TEST(s_lane_lo, compare(v, q->lane_hi, Py_LT))
#undef BOX_TEST
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

/* access_log.scan_all: the whole log, oldest first */
static int scan_all(PyObject *accesses, Box *q, int is_write, PyObject *engine, PyObject **t)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(accesses); i++)
        if (consider(PyList_GET_ITEM(accesses, i), q, is_write, engine, t, 0) < 0)
            return -1;
    return 0;
}

/* a log's list field (a new reference), or NULL with an error */
static PyObject *log_list(PyObject *v, const char *name)
{
    if (v == NULL) {
        PyErr_Format(PyExc_AttributeError, "timeline: MemoryLog.%s is not set", name);
        return NULL;
    }
    if (!PyList_Check(v)) {
        PyErr_Format(PyExc_TypeError, "timeline: MemoryLog.%s must be a list, not %.100s", name, Py_TYPE(v)->tp_name);
        return NULL;
    }
    return Py_NewRef(v);
}
#define LOG_LIST(lg, f) log_list((lg)->f, #f)

/* an integer object (anything with __index__) as a long long */
static int obj_ll(PyObject *v, long long *out)
{
    if (PyLong_CheckExact(v)) {
        *out = PyLong_AsLongLong(v);
        return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
    }
    PyObject *i = PyNumber_Index(v);
    if (i == NULL)
        return -1;
    *out = PyLong_AsLongLong(i);
    Py_DECREF(i);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* an integer attribute of o (anything with __index__) as a long long */
static int attr_ll(PyObject *o, PyObject *name, long long *out)
{
    PyObject *v = attr(o, name);
    if (v == NULL)
        return -1;
    int r = obj_ll(v, out);
    Py_DECREF(v);
    return r;
}

/* ---- the address index of a log, in C (access_log.py's buckets and wide list, same rules) ---- */

static Py_ssize_t MIN_SHIFT = 6, CLEAN_STEP = 16;

/* an access's end as a C double (a float, or a float subclass such as numpy's float64, compares as its
   double does); 0 when it is not a float */
static inline int end_double(PyObject *acc, double *out)
{
    if (!PyList_Check(acc) || PyList_GET_SIZE(acc) < 8)
        return 0;
    PyObject *end = PyList_GET_ITEM(acc, 0);
    if (!PyFloat_Check(end))
        return 0;
    *out = PyFloat_AS_DOUBLE(end);
    return 1;
}

/* m <= t as Python compares them (m: a float's value) */
static int max_le(double m, PyObject *t)
{
    if (PyFloat_Check(t))
        return m <= PyFloat_AS_DOUBLE(t);
    PyObject *f = PyFloat_FromDouble(m);
    if (f == NULL)
        return -1;
    int r = compare(f, t, Py_LE);
    Py_DECREF(f);
    return r;
}

/* access_log.append (and index_add's common case): drop the dead first when the bucket has grown by
   CLEAN_STEP, then add acc (held) with its prefix max */
static int bucket_push(Bucket *b, PyObject *acc, double end)
{
    if (2 + 2 * b->n >= b->trigger) {
        Py_ssize_t j = 0;
        double m = -Py_HUGE_VAL;
        for (Py_ssize_t k = 0; k < b->n; k++) {
            PyObject *a = b->e[k].acc;
            int alive = truth(PyList_GET_ITEM(a, 7));     /* (entries are 8-field lists: index_add checks) */
            if (alive < 0) {
                /* keep this entry and the rest as they are, after the ones kept so far: the dead ones
                   dropped (released) are out of the bucket, no entry is listed twice, and a prefix max
                   left as it was is still an upper bound of the ends before it */
                for (; k < b->n; k++)
                    b->e[j++] = b->e[k];
                b->n = j;
                return -1;
            }
            if (!alive) {
                Py_DECREF(a);
                continue;
            }
            double x = 0.0;
            end_double(a, &x);          /* (a float: index_add checked) */
            if (x > m)
                m = x;
            b->e[j].acc = a;
            b->e[j].max = m;
            j++;
        }
        b->n = j;
        b->newest = m;
        b->trigger = 2 + 2 * j + 2 * CLEAN_STEP;
    }
    if (b->n == b->cap) {
        Py_ssize_t cap = b->cap ? 2 * b->cap : 4;
        Entry *e = PyMem_Realloc(b->e, (size_t)cap * sizeof(Entry));
        if (e == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        b->e = e;
        b->cap = cap;
    }
    if (b->n == 0 || end > b->newest)
        b->newest = end;
    b->e[b->n].acc = Py_NewRef(acc);
    b->e[b->n].max = b->newest;
    b->n++;
    return 0;
}

static inline Py_ssize_t tab_home(long long key, Py_ssize_t tabcap)
{
    return (Py_ssize_t)(((unsigned long long)key * 0x9E3779B97F4A7C15ull) >> 20) & (tabcap - 1);
}

/* the bucket numbered key, or NULL */
static inline Bucket *bucket_find(LogObject *lg, long long key)
{
    if (lg->tabcap == 0)
        return NULL;
    for (Py_ssize_t i = tab_home(key, lg->tabcap);; i = (i + 1) & (lg->tabcap - 1)) {
        Py_ssize_t p = lg->tab[i];
        if (p < 0)
            return NULL;
        if (lg->bk[p].key == key)
            return &lg->bk[p];
    }
}

/* a new empty bucket numbered key (not present); pointers to buckets are invalid after this */
static Bucket *bucket_make(LogObject *lg, long long key)
{
    if (2 * (lg->nbk + 1) > lg->tabcap) {       /* at most half full */
        Py_ssize_t cap = lg->tabcap ? 2 * lg->tabcap : 64;
        Py_ssize_t *tab = PyMem_Malloc((size_t)cap * sizeof(Py_ssize_t));
        if (tab == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        for (Py_ssize_t i = 0; i < cap; i++)
            tab[i] = -1;
        for (Py_ssize_t p = 0; p < lg->nbk; p++) {
            Py_ssize_t i = tab_home(lg->bk[p].key, cap);
            while (tab[i] >= 0)
                i = (i + 1) & (cap - 1);
            tab[i] = p;
        }
        PyMem_Free(lg->tab);
        lg->tab = tab;
        lg->tabcap = cap;
    }
    if (lg->nbk == lg->capbk) {
        Py_ssize_t cap = lg->capbk ? 2 * lg->capbk : 16;
        Bucket *bk = PyMem_Realloc(lg->bk, (size_t)cap * sizeof(Bucket));
        if (bk == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        lg->bk = bk;
        lg->capbk = cap;
    }
    Bucket *b = &lg->bk[lg->nbk];
    b->key = key;
    b->n = b->cap = 0;
    b->e = NULL;
    b->trigger = FRESH;
    b->newest = -Py_HUGE_VAL;
    Py_ssize_t i = tab_home(key, lg->tabcap);
    while (lg->tab[i] >= 0)
        i = (i + 1) & (lg->tabcap - 1);
    lg->tab[i] = lg->nbk++;
    return b;
}

/* access_log.index_add: list acc (its footprint's in-lane bytes [lo, hi)) in each bucket it spans, or in
   wide */
static int index_add(LogObject *lg, PyObject *acc, long long lo, long long hi)
{
    double end;
    if (lg->no_index)
        return 0;
    if (lg->busy) {
        PyErr_SetString(PyExc_RuntimeError, "timeline: an access was remembered during a scan of its memory");
        return -1;
    }
    if (!end_double(acc, &end)) {       /* (never: ends are floats) scans take the whole log from now on */
        lg->no_index = 1;
        return 0;
    }
    long long shift = lg->shift, b = shr(lo, shift), last = shr(hi - 1, shift);
    if (hi <= lo || last - b >= BUCKET_SPAN)
        return bucket_push(&lg->wide, acc, end);
    for (; b <= last; b++) {
        Bucket *bucket = bucket_find(lg, b);
        if (bucket == NULL && (bucket = bucket_make(lg, b)) == NULL)
            return -1;
        if (bucket_push(bucket, acc, end) < 0)
            return -1;
    }
    return 0;
}

/* access_log.build_index: list every remembered access in the index; the buckets as small as lets the
   widest access span at most BUCKET_SPAN - 1 of them (at least 1 << MIN_SHIFT bytes) */
static int build_index(LogObject *lg)
{
    if (lg->busy) {
        PyErr_SetString(PyExc_RuntimeError, "timeline: an index was built during a scan of its memory");
        return -1;
    }
    PyObject *accesses = LOG_LIST(lg, accesses);
    int rc = -1;
    if (accesses == NULL)
        return -1;
    long long widest = 1, lo, hi;
    Py_ssize_t n = PyList_GET_SIZE(accesses);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *a = PyList_GET_ITEM(accesses, k);
        if (!PyList_Check(a) || PyList_GET_SIZE(a) < 8) {
            PyErr_SetString(PyExc_TypeError, "timeline: a remembered access must be a list of 8 fields");
            goto done;
        }
        PyObject *fp = PyList_GET_ITEM(a, 4);
        if (attr_ll(fp, s_lo, &lo) < 0 || attr_ll(fp, s_hi, &hi) < 0)
            goto done;
        if (k == 0 || hi - lo > widest)
            widest = hi - lo;
    }
    /* max(MIN_SHIFT, (-(-widest // (BUCKET_SPAN - 1)) - 1).bit_length()) */
    long long d = BUCKET_SPAN - 1, c = widest >= 0 ? (widest + d - 1) / d : -((-widest) / d), x = c - 1;
    unsigned long long u = x < 0 ? -(unsigned long long)x : (unsigned long long)x;
    Py_ssize_t bits = 0;
    while (u) {
        bits++;
        u >>= 1;
    }
    lg->shift = bits > MIN_SHIFT ? bits : MIN_SHIFT;
    index_clear(lg);
    lg->wide.trigger = FRESH;
    lg->wide.newest = -Py_HUGE_VAL;
    lg->no_index = 0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(accesses); k++) {
        PyObject *a = PyList_GET_ITEM(accesses, k), *fp = PyList_GET_ITEM(a, 4);
        Py_INCREF(a);
        int r = attr_ll(fp, s_lo, &lo) < 0 || attr_ll(fp, s_hi, &hi) < 0 || index_add(lg, a, lo, hi) < 0;
        Py_DECREF(a);
        if (r)
            goto done;
    }
    lg->indexed = 1;
    PyObject *empty = PyList_New(0);
    if (empty == NULL)
        goto done;
    Py_XSETREF(lg->ends_max, empty);
    rc = 0;
done:
    Py_DECREF(accesses);
    return rc;
}

/* access_log.scan over a bucket: newest first, stopping at the first prefix max <= t */
static int bucket_scan(LogObject *lg, Bucket *b, Box *q, int is_write, PyObject *engine, PyObject **t)
{
    int rc = 0;
    lg->busy++;
    for (Py_ssize_t i = b->n - 1; i >= 0; i--) {
        int r = max_le(b->e[i].max, *t);
        if (r < 0 || (r == 0 && consider(b->e[i].acc, q, is_write, engine, t, 1) < 0)) {
            rc = -1;
            break;
        }
        if (r)
            break;
    }
    lg->busy--;
    return rc;
}

/* a bucket as access_log.py's list: [trigger, newest max, max0, acc0, max1, acc1, ...] */
static PyObject *bucket_list(Bucket *b)
{
    PyObject *l = PyList_New(2 + 2 * b->n), *v;
    if (l == NULL)
        return NULL;
    if (!(v = PyLong_FromSsize_t(b->trigger)))
        goto fail;
    PyList_SET_ITEM(l, 0, v);
    if (!(v = PyFloat_FromDouble(b->newest)))
        goto fail;
    PyList_SET_ITEM(l, 1, v);
    for (Py_ssize_t k = 0; k < b->n; k++) {
        if (!(v = PyFloat_FromDouble(b->e[k].max)))
            goto fail;
        PyList_SET_ITEM(l, 2 + 2 * k, v);
        PyList_SET_ITEM(l, 3 + 2 * k, Py_NewRef(b->e[k].acc));
    }
    return l;
fail:
    Py_DECREF(l);
    return NULL;
}

/* MemoryLog.buckets of a native log: a snapshot dict {number: bucket list} (tests and debugging read it) */
static PyObject *log_get_buckets(LogObject *lg, void *closure)
{
    PyObject *d = PyDict_New();
    for (Py_ssize_t p = 0; d != NULL && p < lg->nbk; p++) {
        PyObject *key = PyLong_FromLongLong(lg->bk[p].key), *l = key ? bucket_list(&lg->bk[p]) : NULL;
        if (l == NULL || PyDict_SetItem(d, key, l) < 0)
            Py_CLEAR(d);
        Py_XDECREF(key);
        Py_XDECREF(l);
    }
    return d;
}

/* assigning an empty dict empties the buckets (MemoryLog.__init__); nothing else can be assigned */
static int log_set_buckets(LogObject *lg, PyObject *v, void *closure)
{
    if (v == NULL || !PyDict_Check(v) || PyDict_GET_SIZE(v) != 0) {
        PyErr_SetString(PyExc_TypeError, "the native timeline's log keeps its index itself: only {} may be assigned");
        return -1;
    }
    if (lg->busy) {         /* a scan holds a bucket: freeing it under the scan would be a use after free */
        PyErr_SetString(PyExc_RuntimeError, "timeline: a log's index was emptied during a scan of its memory");
        return -1;
    }
    Bucket wide = lg->wide;
    lg->wide.e = NULL;
    lg->wide.n = lg->wide.cap = 0;
    index_clear(lg);
    lg->wide = wide;
    return 0;
}

static PyObject *log_get_wide(LogObject *lg, void *closure)
{
    return bucket_list(&lg->wide);
}

/* assigning [trigger, max] (an empty list, MemoryLog.__init__) empties wide */
static int log_set_wide(LogObject *lg, PyObject *v, void *closure)
{
    if (v == NULL || !PyList_Check(v) || PyList_GET_SIZE(v) != 2) {
        PyErr_SetString(PyExc_TypeError, "the native timeline's log keeps its index itself: only [trigger, max] "
                        "may be assigned to wide");
        return -1;
    }
    Py_ssize_t trigger = PyLong_AsSsize_t(PyList_GET_ITEM(v, 0));
    double newest = PyFloat_AsDouble(PyList_GET_ITEM(v, 1));
    if (PyErr_Occurred())
        return -1;
    if (lg->busy) {
        PyErr_SetString(PyExc_RuntimeError, "timeline: a log's index was emptied during a scan of its memory");
        return -1;
    }
    bucket_clear(&lg->wide);
    lg->wide.trigger = trigger;
    lg->wide.newest = newest;
    return 0;
}

static PyGetSetDef log_getset[] = {
    {"buckets", (getter)log_get_buckets, (setter)log_set_buckets,
     "bucket number -> [trigger, newest max, max0, acc0, ...] (a snapshot of the C index)", NULL},
    {"wide", (getter)log_get_wide, (setter)log_set_wide, "[trigger, newest max, max0, acc0, ...] (a snapshot)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *log_build_index(PyObject *self, PyObject *unused)
{
    if (build_index((LogObject *)self) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef log_methods[] = {
    {"_build_index", log_build_index, METH_NOARGS, "access_log.build_index for a native log (C)."},
    {NULL, NULL, 0, NULL},
};

/* The indexed branch of Timeline._dependencies_end for one footprint (log.indexed) */
static int indexed_end(LogObject *lg, Box *q, int is_write, PyObject *engine, PyObject **t)
{
    long long shift = lg->shift, lo, hi;
    if (obj_ll(q->lo, &lo) < 0 || obj_ll(q->hi, &hi) < 0)
        return -1;
    long long b = shr(lo, shift), last = shr(hi - 1, shift);
    if (hi <= lo || last - b >= BUCKET_SPAN || lg->no_index) {
        PyObject *accesses = LOG_LIST(lg, accesses);
        if (accesses == NULL)
            return -1;
        int rc = scan_all(accesses, q, is_write, engine, t);
        Py_DECREF(accesses);
        return rc;
    }
    if (lg->wide.n > 0 && bucket_scan(lg, &lg->wide, q, is_write, engine, t) < 0)
        return -1;
    for (; b <= last; b++) {
        Bucket *bucket = bucket_find(lg, b);
        if (bucket == NULL)
            continue;
        int r = max_le(bucket->newest, *t);
        if (r < 0 || (r == 0 && bucket_scan(lg, bucket, q, is_write, engine, t) < 0))
            return -1;
    }
    return 0;
}

/* The unindexed branch: the whole log newest first until its prefix max of ends says nothing older can
   raise t; a scan longer than INDEX_AFTER builds the log's index. */
static int unindexed_end(LogObject *lg, Box *q, int is_write, PyObject *engine, PyObject **t)
{
    PyObject *accesses = LOG_LIST(lg, accesses), *ends_max = NULL;
    int rc = -1;
    if (accesses == NULL || !(ends_max = LOG_LIST(lg, ends_max)))
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
        if (build_index(lg) < 0)
            goto done;
    }
    rc = 0;
done:
    Py_XDECREF(accesses);
    Py_XDECREF(ends_max);
    return rc;
}

/* ---- the log of a memory ---- */

/* The timeline's own attributes the C paths read on every instruction live in the instance (member
   descriptors of the base type, which Timeline.__init__'s assignments store to): a read is a load, not
   an instance-dict lookup. The last memories met and their logs are remembered (log_of). */
#define LOG_CACHE 4
typedef struct {
    PyObject_HEAD
    PyObject *core, *engines, *trace, *logs, *used;
    PyObject *cache_mem[LOG_CACHE];     /* held: a memory's address is not reused while it is here */
    PyObject *cache_log[LOG_CACHE];     /* borrowed: _logs holds them while its version tag is cache_tag */
    PyObject *cache_logs;               /* the _logs dict the entries are of (compared by address only) */
    uint64_t cache_tag;
    int cache_next;
} TimelineCoreObject;

static void cache_flush(TimelineCoreObject *self)
{
    for (int k = 0; k < LOG_CACHE; k++) {
        Py_CLEAR(self->cache_mem[k]);
        self->cache_log[k] = NULL;
    }
    self->cache_logs = NULL;
    self->cache_next = 0;
}

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#define DICT_TAG(d) (((PyDictObject *)(d))->ma_version_tag)
#define HAVE_DICT_TAG 1
#else
#define DICT_TAG(d) ((uint64_t)0)
#define HAVE_DICT_TAG 0
#endif

/* The log of fp's memory in self._logs (a new reference), or NULL with no exception when there is none.
   _logs is keyed by memory.id (an instance attribute: a dict lookup of its own); a memory's id never
   changes, so a memory met before maps to the same log for as long as _logs is unchanged (CPython 3.11's
   dict version tag says so; elsewhere every call looks it up). */
static PyObject *log_of(TimelineCoreObject *self, PyObject *logs, PyObject *fp)
{
    PyObject *mem = attr(fp, s_memory);
    if (mem == NULL)
        return NULL;
    if (HAVE_DICT_TAG && self->cache_logs == logs && self->cache_tag == DICT_TAG(logs))
        for (int k = 0; k < LOG_CACHE; k++)
            if (self->cache_mem[k] == mem) {
                Py_DECREF(mem);
                return Py_NewRef(self->cache_log[k]);
            }
    PyObject *mid = attr(mem, s_id);
    if (mid == NULL) {
        Py_DECREF(mem);
        return NULL;
    }
    PyObject *log = PyDict_GetItemWithError(logs, mid);
    Py_DECREF(mid);
    if (log != NULL && HAVE_DICT_TAG) {
        if (self->cache_logs != logs || self->cache_tag != DICT_TAG(logs)) {
            cache_flush(self);
            self->cache_logs = logs;
            self->cache_tag = DICT_TAG(logs);
        }
        int k = self->cache_next;
        self->cache_next = (k + 1) % LOG_CACHE;
        Py_XSETREF(self->cache_mem[k], Py_NewRef(mem));
        self->cache_log[k] = log;
    }
    Py_DECREF(mem);
    Py_XINCREF(log);
    return log;
}

/* One footprint of Timeline._dependencies_end */
static int footprint_end(PyObject *self, PyObject *logs, PyObject *fp, int is_write, PyObject *engine,
                         PyObject **t)
{
    PyObject *log = log_of((TimelineCoreObject *)self, logs, fp), *v;
    LogObject *lg;
    Box q = {NULL, NULL, NULL, NULL};
    int rc = -1, r;
    if (log == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (!(lg = as_log(log)) || !(v = LOG_GET(lg, horizon)) || (r = compare(v, *t, Py_GT)) < 0)
        goto done;
    if (r)
        Py_SETREF(*t, Py_NewRef(lg->horizon));
    /* rare: a late first use of an engine */
    if (!(v = Py_XNewRef(LOG_GET(lg, archive_for))))
        goto done;
    r = PyAnySet_CheckExact(v) ? (PySet_GET_SIZE(v) ? PySet_Contains(v, engine) : 0) : truth(v);
    if (r > 0 && !PyAnySet_CheckExact(v))
        r = PySequence_Contains(v, engine);
    Py_DECREF(v);
    if (r < 0)
        goto done;
    if (r) {
        PyObject *res = PyObject_CallMethodObjArgs(self, s_archived_end, log, fp, is_write ? Py_True : Py_False,
                                                   engine, *t, NULL);
        if (res == NULL)
            goto done;
        Py_SETREF(*t, res);
    }
    /* one engine's accesses only: program order covers them; a read meets only writes */
    if (!(v = Py_XNewRef(LOG_GET(lg, engine))))
        goto done;
    r = equal(v, engine);
    Py_DECREF(v);
    if (r < 0)
        goto done;
    if (r) {
        rc = 0;
        goto done;
    }
    if (!is_write) {
        if (!(v = Py_XNewRef(LOG_GET(lg, write_end))))
            goto done;
        r = compare(v, *t, Py_LE);
        Py_DECREF(v);
        if (r < 0)
            goto done;
        if (r) {
            rc = 0;
            goto done;
        }
    }
    if (box_get(&q, fp) < 0)
        goto done;
    rc = lg->indexed ? indexed_end(lg, &q, is_write, engine, t) : unindexed_end(lg, &q, is_write, engine, t);
done:
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
    PyObject *logs = attr(self, s_logs);
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
            /* held: fps may be the caller's list, and footprint_end may run Python code */
            PyObject *fp = Py_NewRef(PySequence_Fast_GET_ITEM(fps, k));
            int r = footprint_end(self, logs, fp, is_write, engine, &t);
            Py_DECREF(fp);
            if (r < 0) {
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

/* ---- pruning (Timeline._prune's common case: no sync-ordered access) ---- */

static PyObject *end_of_fn, *s_sort, *kw_key;
static PyObject *s_prune_py, *s_MAX_TRACKED, *s_archive, *s_fold, *s_name, *s_ARCHIVE_CAP, *s_archive_horizon;

/* an int attribute of the timeline's class (PRUNE_AT, MAX_TRACKED) */
static int class_ll(PyObject *self, PyObject *name, Py_ssize_t *out)
{
    PyObject *v = attr(self, name);
    if (v == NULL)
        return -1;
    *out = PyLong_AsSsize_t(v);
    Py_DECREF(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* log.prune_at = n + self.PRUNE_AT */
static int set_prune_at(PyObject *self, LogObject *lg, Py_ssize_t n)
{
    Py_ssize_t prune_at;
    if (class_ll(self, s_PRUNE_AT, &prune_at) < 0)
        return -1;
    lg->prune_at = n + prune_at;
    return 0;
}

/* MemoryLog.keep_only(keep) for a log with has_sync False */
static int keep_only(LogObject *lg, PyObject *keep)
{
    PyObject *write_end = NULL, *engine = NULL, *ends_max = NULL, *m = NULL;
    int rc = -1, r, indexed = lg->indexed;
    LOG_SET(lg, accesses, keep);
    if (!(write_end = PyFloat_FromDouble(-Py_HUGE_VAL)))
        goto done;
    Py_ssize_t n = PyList_GET_SIZE(keep);
    if (n) {
        PyObject *a = PyList_GET_ITEM(keep, 0);
        if (!PyList_Check(a) || PyList_GET_SIZE(a) < 8) {
            PyErr_SetString(PyExc_TypeError, "timeline: a remembered access must be a list of 8 fields");
            goto done;
        }
        engine = Py_NewRef(PyList_GET_ITEM(a, 2));
    } else {
        engine = Py_NewRef(Py_None);
    }
    if (!indexed && !(ends_max = PyList_New(0)))
        goto done;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(keep); k++) {
        PyObject *a = PyList_GET_ITEM(keep, k);
        if (!PyList_Check(a) || PyList_GET_SIZE(a) < 8) {
            PyErr_SetString(PyExc_TypeError, "timeline: a remembered access must be a list of 8 fields");
            goto done;
        }
        Py_INCREF(a);
        PyObject *end = Py_NewRef(PyList_GET_ITEM(a, 0)), *w = Py_NewRef(PyList_GET_ITEM(a, 1)),
                 *e = Py_NewRef(PyList_GET_ITEM(a, 2));
        r = truth(w);
        if (r == 1 && (r = compare(end, write_end, Py_GT)) == 1)
            Py_SETREF(write_end, Py_NewRef(end));
        if (r >= 0 && (r = not_equal(e, engine)) == 1)
            Py_SETREF(engine, Py_NewRef(Py_None));
        if (r >= 0 && !indexed) {       /* the prefix max of ends (the first of equals) */
            if (m == NULL || (r = compare(end, m, Py_GT)) == 1)
                Py_XSETREF(m, Py_NewRef(end));
            if (r >= 0)
                r = PyList_Append(ends_max, m);
        }
        Py_DECREF(end);
        Py_DECREF(w);
        Py_DECREF(e);
        Py_DECREF(a);
        if (r < 0)
            goto done;
    }
    LOG_SET(lg, write_end, write_end);
    LOG_SET(lg, engine, engine);
    if (!indexed)
        LOG_SET(lg, ends_max, ends_max);
    rc = 0;
done:
    Py_XDECREF(write_end); Py_XDECREF(engine); Py_XDECREF(ends_max); Py_XDECREF(m);
    return rc;
}

/* some engine of `engines` has not synchronised past access a: e.clock.get(a[ENGINE], 0) < a[SEQ] */
static int unsynced(PyObject *engines, PyObject *a)
{
    PyObject *eng = Py_NewRef(PyList_GET_ITEM(a, 2)), *seq = Py_NewRef(PyList_GET_ITEM(a, 3));
    int r = 0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(engines) && r == 0; k++) {
        PyObject *clock = attr(PyList_GET_ITEM(engines, k), s_clock), *v;
        if (clock == NULL || !PyDict_Check(clock)) {
            if (clock != NULL)
                PyErr_SetString(PyExc_TypeError, "timeline: Engine.clock must be a dict");
            Py_XDECREF(clock);
            r = -1;
            break;
        }
        v = PyDict_GetItemWithError(clock, eng);
        if (v == NULL && PyErr_Occurred())
            r = -1;
        else
            r = compare(v ? v : long_0, seq, Py_LT);
        Py_DECREF(clock);
    }
    Py_DECREF(eng);
    Py_DECREF(seq);
    return r;
}

/* Timeline._archive(log, unused, dropped): move the dropped accesses that could still delay or race with
   an unused engine's instructions into the memory's archive */
static int archive(PyObject *self, LogObject *lg, PyObject *unused, PyObject *dropped)
{
    PyObject *first_free = NULL, *moved = NULL, *arch = NULL, *archive_for = NULL, *v = NULL, *m = NULL;
    int rc = -1, r;
    Py_ssize_t cap;
    if (PyList_GET_SIZE(unused) == 0) {
        PyErr_SetString(PyExc_ValueError, "min() arg is an empty sequence");
        return -1;
    }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(unused); k++) {      /* min(e.free_ns for e in unused) */
        if (!(v = attr(PyList_GET_ITEM(unused, k), s_free_ns)))
            goto done;
        if (first_free == NULL || (r = compare(v, first_free, Py_LT)) == 1)
            Py_XSETREF(first_free, Py_NewRef(v));
        else if (r < 0)
            goto done;
        Py_CLEAR(v);
    }
    if (!(moved = PyList_New(0)))
        goto done;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(dropped); k++) {
        PyObject *a = PyList_GET_ITEM(dropped, k);
        Py_INCREF(a);
        PyObject *end = Py_NewRef(PyList_GET_ITEM(a, 0)), *sync = Py_NewRef(PyList_GET_ITEM(a, 6));
        r = compare(end, first_free, Py_GT);
        if (r == 0 && (r = truth(sync)) == 1)
            r = unsynced(unused, a);
        if (r == 1)
            r = PyList_Append(moved, a);
        Py_DECREF(end);
        Py_DECREF(sync);
        Py_DECREF(a);
        if (r < 0)
            goto done;
    }
    if (PyList_GET_SIZE(moved) == 0) {
        rc = 0;
        goto done;
    }
    if (!(arch = LOG_LIST(lg, archive)) || PyList_SetSlice(arch, PY_SSIZE_T_MAX, PY_SSIZE_T_MAX, moved) < 0)
        goto done;
    if (!(archive_for = Py_XNewRef(LOG_GET(lg, archive_for))))
        goto done;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(unused); k++) {     /* archive_for.update(e.name ...) */
        PyObject *name = attr(PyList_GET_ITEM(unused, k), s_name);
        r = name == NULL ? -1 : PySet_Check(archive_for) ? PySet_Add(archive_for, name) : -2;
        if (r == -2) {
            PyObject *x = PyObject_CallMethod(archive_for, "add", "O", name);
            r = x ? 0 : -1;
            Py_XDECREF(x);
        }
        Py_XDECREF(name);
        if (r < 0)
            goto done;
    }
    if (class_ll(self, s_ARCHIVE_CAP, &cap) < 0)
        goto done;
    Py_ssize_t n = PyList_GET_SIZE(arch);
    if (n > cap) {
        /* the oldest half folds into a horizon: max(log.archive_horizon, max(ends of archive[:cut])) */
        Py_ssize_t cut = n - cap / 2;       /* (cap >= 0: Python's // and C's / agree) */
        for (Py_ssize_t k = 0; k < cut && k < PyList_GET_SIZE(arch); k++) {
            PyObject *a = PyList_GET_ITEM(arch, k);
            if (!PyList_Check(a) || PyList_GET_SIZE(a) < 8) {
                PyErr_SetString(PyExc_TypeError, "timeline: a remembered access must be a list of 8 fields");
                goto done;
            }
            PyObject *end = Py_NewRef(PyList_GET_ITEM(a, 0));
            r = m == NULL ? 1 : compare(end, m, Py_GT);
            if (r == 1)
                Py_XSETREF(m, Py_NewRef(end));
            Py_DECREF(end);
            if (r < 0)
                goto done;
        }
        if (!(v = Py_XNewRef(LOG_GET(lg, archive_horizon))) || (r = compare(m, v, Py_GT)) < 0)
            goto done;
        LOG_SET(lg, archive_horizon, r ? m : v);
        if (PyList_SetSlice(arch, 0, cut, NULL) < 0)
            goto done;
    }
    rc = 0;
done:
    Py_XDECREF(first_free); Py_XDECREF(moved); Py_XDECREF(arch); Py_XDECREF(archive_for); Py_XDECREF(v);
    Py_XDECREF(m);
    return rc;
}

/* keep.sort(key=end_of) when every end is a float that is not NaN: a stable sort on C doubles (Python's
   sort is stable and compares two such floats as C doubles do; the order of equal ends is kept). 1 sorted, 0 not (the caller sorts in
   Python), -1 error. */
typedef struct { double end; Py_ssize_t k; } EndKey;

static int sort_by_end(PyObject *keep)
{
    Py_ssize_t n = PyList_GET_SIZE(keep);
    EndKey *keys = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(EndKey));
    PyObject **items = keys ? PyMem_Malloc((size_t)(n ? n : 1) * sizeof(PyObject *)) : NULL;
    if (items == NULL) {
        PyMem_Free(keys);
        PyErr_NoMemory();
        return -1;
    }
    int ok = 1;
    for (Py_ssize_t k = 0; k < n && ok; k++) {
        PyObject *a = PyList_GET_ITEM(keep, k);
        PyObject *end = PyList_Check(a) && PyList_GET_SIZE(a) >= 8 ? PyList_GET_ITEM(a, 0) : NULL;
        ok = end != NULL && PyFloat_CheckExact(end) && !isnan(PyFloat_AS_DOUBLE(end));
        if (ok) {
            keys[k].end = PyFloat_AS_DOUBLE(end);
            keys[k].k = k;
        }
    }
    if (ok) {
        /* insertion sort: stable, and the kept accesses are mostly in order of their ends already */
        for (Py_ssize_t k = 1; k < n; k++) {
            EndKey x = keys[k];
            Py_ssize_t j = k;
            while (j > 0 && x.end < keys[j - 1].end) {
                keys[j] = keys[j - 1];
                j--;
            }
            keys[j] = x;
        }
        for (Py_ssize_t k = 0; k < n; k++)
            items[k] = PyList_GET_ITEM(keep, keys[k].k);
        for (Py_ssize_t k = 0; k < n; k++)
            PyList_SET_ITEM(keep, k, items[k]);       /* a permutation: the references stay as they are */
    }
    PyMem_Free(items);
    PyMem_Free(keys);
    return ok;
}

/* Timeline._fold(log, keep): sort keep by end, fold the oldest (all but MAX_TRACKED // 2) into
   log.horizon, mark them dead; the rest (a new list). */
static PyObject *fold(PyObject *self, LogObject *lg, PyObject *keep, Py_ssize_t max_tracked)
{
    Py_ssize_t cut = PyList_GET_SIZE(keep) - max_tracked / 2;
    if (max_tracked < 0 || cut < 1)         /* (never, as _prune calls it; Python's indexing rules then) */
        return PyObject_CallMethodObjArgs(self, s_fold, (PyObject *)lg, keep, NULL);
    int sorted = sort_by_end(keep);
    if (sorted < 0)
        return NULL;
    if (!sorted) {
        PyObject *args[2] = {keep, end_of_fn}, *res = PyObject_VectorcallMethod(s_sort, args, 1, kw_key);
        if (res == NULL)
            return NULL;
        Py_DECREF(res);
    }
    if (PyList_GET_SIZE(keep) < cut) {
        PyErr_SetString(PyExc_RuntimeError, "timeline: the kept accesses changed while sorting");
        return NULL;
    }
    PyObject *last = PyList_GET_ITEM(keep, cut - 1), *horizon = NULL, *end = NULL;
    int r = -1;
    if (PyList_Check(last) && PyList_GET_SIZE(last) >= 8) {
        end = Py_NewRef(PyList_GET_ITEM(last, 0));
        if ((horizon = Py_XNewRef(LOG_GET(lg, horizon))) && (r = compare(end, horizon, Py_GT)) >= 0) {
            LOG_SET(lg, horizon, r ? end : horizon);        /* max(log.horizon, end) */
            r = 0;
        }
    } else {
        PyErr_SetString(PyExc_TypeError, "timeline: a remembered access must be a list of 8 fields");
    }
    Py_XDECREF(end);
    Py_XDECREF(horizon);
    if (r < 0)
        return NULL;
    for (Py_ssize_t k = 0; k < cut && k < PyList_GET_SIZE(keep); k++) {
        PyObject *a = PyList_GET_ITEM(keep, k);
        if (!PyList_Check(a) || PyList_GET_SIZE(a) < 8) {
            PyErr_SetString(PyExc_TypeError, "timeline: a remembered access must be a list of 8 fields");
            return NULL;
        }
        if (PyList_SetItem(a, 7, Py_NewRef(Py_False)) < 0)
            return NULL;
    }
    return PyList_GetSlice(keep, cut, PY_SSIZE_T_MAX);
}

/* Timeline._prune(log); the general case (some sync-ordered access) is the Python method's */
static int prune(PyObject *self, LogObject *lg)
{
    PyObject *v = NULL, *used = NULL, *horizon = NULL, *accesses = NULL, *keep = NULL,
             *dropped = NULL, *engines = NULL, *res = NULL;
    int rc = -1, r;
    if (lg->has_sync) {
        res = PyObject_CallMethodOneArg(self, s_prune_py, (PyObject *)lg);
        rc = res ? 0 : -1;
        goto done;
    }
    if (!(used = attr(self, s_used)))
        goto done;
    if (!PyList_Check(used) || PyList_GET_SIZE(used) == 0) {
        PyErr_SetString(PyExc_IndexError, "timeline: _used must be a non-empty list when pruning");
        goto done;
    }
    if (!(horizon = attr(PyList_GET_ITEM(used, 0), s_free_ns)))
        goto done;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(used); k++) {
        if (!(v = attr(PyList_GET_ITEM(used, k), s_free_ns)) || (r = compare(v, horizon, Py_LT)) < 0)
            goto done;
        if (r)
            Py_SETREF(horizon, Py_NewRef(v));
        Py_CLEAR(v);
    }
    if (!(accesses = LOG_LIST(lg, accesses)))
        goto done;
    {
        /* which to keep (a[END] > horizon), then the two lists made at their sizes */
        Py_ssize_t n = PyList_GET_SIZE(accesses), n_kept = 0;
        char *kept = PyMem_Malloc((size_t)(n ? n : 1));
        if (kept == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        r = 0;
        for (Py_ssize_t k = 0; k < n && r >= 0; k++) {
            PyObject *a = PyList_GET_ITEM(accesses, k);
            if (!PyList_Check(a) || PyList_GET_SIZE(a) < 8) {
                PyErr_SetString(PyExc_TypeError, "timeline: a remembered access must be a list of 8 fields");
                r = -1;
                break;
            }
            PyObject *end = Py_NewRef(PyList_GET_ITEM(a, 0));
            r = compare(end, horizon, Py_GT);
            Py_DECREF(end);
            kept[k] = r == 1;
            n_kept += r == 1;
        }
        if (r >= 0 && PyList_GET_SIZE(accesses) != n) {
            PyErr_SetString(PyExc_RuntimeError, "timeline: the log changed while pruning");
            r = -1;
        }
        if (r >= 0 && (keep = PyList_New(n_kept)) != NULL && (dropped = PyList_New(n - n_kept)) != NULL) {
            Py_ssize_t i = 0, j = 0;
            for (Py_ssize_t k = 0; k < n; k++) {
                PyObject *a = Py_NewRef(PyList_GET_ITEM(accesses, k));
                if (kept[k])
                    PyList_SET_ITEM(keep, i++, a);
                else
                    PyList_SET_ITEM(dropped, j++, a);
            }
        }
        PyMem_Free(kept);
        if (r < 0 || keep == NULL || dropped == NULL)
            goto done;
    }
    Py_ssize_t n_keep = PyList_GET_SIZE(keep), max_tracked;
    if (class_ll(self, s_MAX_TRACKED, &max_tracked) < 0)
        goto done;
    if (PyList_GET_SIZE(dropped)) {
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(dropped); k++)
            if (PyList_SetItem(PyList_GET_ITEM(dropped, k), 7, Py_NewRef(Py_False)) < 0)
                goto done;
        if (!(engines = attr(self, s_engines)))
            goto done;
        Py_ssize_t n_engines = PyObject_Size(engines);
        if (n_engines < 0)
            goto done;
        if (PyList_GET_SIZE(used) < n_engines) {        /* some engine has placed nothing yet */
            PyObject *unused = PyList_New(0), *values = unused ? PyMapping_Values(engines) : NULL;
            PyObject *seq = values ? PySequence_Fast(values, "engines.values()") : NULL;
            r = seq ? 0 : -1;
            for (Py_ssize_t k = 0; seq && k < PySequence_Fast_GET_SIZE(seq) && r == 0; k++) {
                PyObject *e = PySequence_Fast_GET_ITEM(seq, k), *count = attr(e, s_count);
                r = count ? truth(count) : -1;
                Py_XDECREF(count);
                if (r == 0)
                    r = PyList_Append(unused, e);
                else if (r == 1)
                    r = 0;
            }
            if (r == 0)
                r = archive(self, lg, unused, dropped);
            Py_XDECREF(unused);
            Py_XDECREF(values);
            Py_XDECREF(seq);
            if (r < 0)
                goto done;
        }
    } else if (n_keep <= max_tracked) {        /* nothing to forget: the log stays as it is */
        rc = set_prune_at(self, lg, n_keep);
        goto done;
    }
    if (n_keep > max_tracked) {
        PyObject *folded = fold(self, lg, keep, max_tracked);
        if (folded == NULL)
            goto done;
        Py_SETREF(keep, folded);
        if (!PyList_Check(keep)) {
            PyErr_SetString(PyExc_TypeError, "timeline: _fold must return a list");
            goto done;
        }
    }
    if (keep_only(lg, keep) < 0)
        goto done;
    rc = set_prune_at(self, lg, PyList_GET_SIZE(keep));
done:
    Py_XDECREF(v); Py_XDECREF(used); Py_XDECREF(horizon); Py_XDECREF(accesses); Py_XDECREF(keep);
    Py_XDECREF(dropped); Py_XDECREF(engines); Py_XDECREF(res);
    return rc;
}

/* One footprint of Timeline._remember */
static int remember_one(PyObject *self, PyObject *logs, PyObject *fp, int is_write, PyObject *end,
                        PyObject *engine, PyObject *seq, PyObject *ev, PyObject *sync, int sync_true)
{
    PyObject *log = NULL, *accesses = NULL, *acc = NULL, *v = NULL;
    LogObject *lg;
    int rc = -1, r;
    log = log_of((TimelineCoreObject *)self, logs, fp);
    if (log == NULL) {
        if (PyErr_Occurred())
            goto done;
        PyObject *mem = attr(fp, s_memory), *mid = mem ? attr(mem, s_id) : NULL;
        Py_XDECREF(mem);
        PyObject *prune_at = mid ? attr(self, s_PRUNE_AT) : NULL;
        if (prune_at == NULL) {
            Py_XDECREF(mid);
            goto done;
        }
        log = PyObject_CallOneArg(MemoryLogType, prune_at);
        Py_DECREF(prune_at);
        r = log == NULL ? -1 : PyDict_SetItem(logs, mid, log);
        Py_DECREF(mid);
        if (r < 0)
            goto done;
    }
    if (!(lg = as_log(log)) || !(accesses = LOG_LIST(lg, accesses)))
        goto done;
    if (PyList_GET_SIZE(accesses) == 0) {
        LOG_SET(lg, engine, engine);
    } else {
        if (!(v = Py_XNewRef(LOG_GET(lg, engine))) || (r = not_equal(v, engine)) < 0)
            goto done;
        Py_CLEAR(v);
        if (r)
            LOG_SET(lg, engine, Py_None);
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
    if (sync_true)
        lg->has_sync = 1;
    if (is_write) {
        if (!(v = Py_XNewRef(LOG_GET(lg, write_end))) || (r = compare(end, v, Py_GT)) < 0)
            goto done;
        Py_CLEAR(v);
        if (r)
            LOG_SET(lg, write_end, end);
    }
    if (lg->indexed) {
        long long lo, hi;
        PyObject *o;
        if (!(o = attr(fp, s_lo)))
            goto done;
        r = obj_ll(o, &lo);
        Py_DECREF(o);
        if (r < 0 || !(o = attr(fp, s_hi)))
            goto done;
        r = obj_ll(o, &hi);
        Py_DECREF(o);
        if (r < 0 || index_add(lg, acc, lo, hi) < 0)
            goto done;
    } else {
        if (!(v = LOG_LIST(lg, ends_max)))
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
    if (PyList_GET_SIZE(accesses) > lg->prune_at && prune(self, lg) < 0)
        goto done;
    rc = 0;
done:
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
    PyObject *logs = attr(self, s_logs);
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
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(fps) && rc == 0; k++) {
            /* held: fps may be the caller's list, and remember_one may run Python code (a new log, _prune) */
            PyObject *fp = Py_NewRef(PySequence_Fast_GET_ITEM(fps, k));
            rc = remember_one(self, logs, fp, is_write, args[2], args[3], args[4], args[5], args[6], sync_true);
            Py_DECREF(fp);
        }
        Py_DECREF(fps);
    }
    Py_DECREF(logs);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ---- the caller's file:line (timeline.caller_source, from a given frame) ---- */

/* Walking the stack: on CPython 3.11 over the interpreter's own frame records, which costs no frame
   object per level (PyFrame_GetBack makes one for each); elsewhere through the public frame API. Both
   give what Python's frame.f_code, f_lasti, f_lineno and f_back give. */
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#define Py_BUILD_CORE 1
#include <internal/pycore_frame.h>
#undef Py_BUILD_CORE
typedef _PyInterpreterFrame Frame;

static Frame *complete(Frame *f)
{
    while (f != NULL && _PyFrame_IsIncomplete(f))
        f = f->previous;
    return f;
}
static Frame *frame_first(void) { return complete(PyThreadState_Get()->cframe->current_frame); }
static Frame *frame_back(Frame *f) { return complete(f->previous); }
static PyCodeObject *frame_code(Frame *f) { return f->f_code; }
static int frame_lasti(Frame *f)
{
    int lasti = _PyInterpreterFrame_LASTI(f);
    return lasti < 0 ? -1 : lasti * (int)sizeof(_Py_CODEUNIT);
}
static int frame_lineno(Frame *f)
{
    if (f->frame_obj != NULL)
        return PyFrame_GetLineNumber(f->frame_obj);
    return PyCode_Addr2Line(f->f_code, _PyInterpreterFrame_LASTI(f) * (int)sizeof(_Py_CODEUNIT));
}
#define frame_hold(f) ((void)0)
#define frame_release(f) ((void)0)
#else
typedef PyFrameObject Frame;

static Frame *frame_first(void) { return PyEval_GetFrame(); }         /* borrowed */
static Frame *frame_back(Frame *f) { Frame *b = PyFrame_GetBack(f); Py_XDECREF(b); return b; }
static PyCodeObject *frame_code(Frame *f) { PyCodeObject *c = PyFrame_GetCode(f); Py_DECREF(c); return c; }
static int frame_lasti(Frame *f) { return PyFrame_GetLasti(f); }
static int frame_lineno(Frame *f) { return PyFrame_GetLineNumber(f); }
#define frame_hold(f) Py_XINCREF(f)
#define frame_release(f) Py_XDECREF(f)
#endif

/* timeline.py's global `name` (borrowed), looked up each time: tests and callers may rebind it */
static PyObject *global(PyObject *name)
{
    PyObject *v = PyDict_GetItemWithError(timeline_globals, name);
    if (v == NULL && !PyErr_Occurred())
        PyErr_Format(PyExc_NameError, "timeline.py has no %R", name);
    return v;
}

/* The globals every placement reads (borrowed), looked up again whenever timeline.py's namespace has
   changed since (CPython 3.11's dict version tag; always elsewhere). */
static struct {
    int valid;
    uint64_t tag;
    PyObject *options, *override, *inside, *basenames, *pkg_dir, *lines, *lines_cap;
} G;

static int globals_fresh(void)
{
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
    uint64_t tag = ((PyDictObject *)timeline_globals)->ma_version_tag;
    if (G.valid && G.tag == tag)
        return 0;
#else
    uint64_t tag = 0;
#endif
    G.valid = 0;
    if (!(G.options = global(s_options)) || !(G.override = global(s_SOURCE_OVERRIDE)) ||
        !(G.inside = global(s_INSIDE)) || !(G.basenames = global(s_BASENAMES)) || !(G.pkg_dir = global(s_PKG_DIR)) ||
        !(G.lines = global(s_LINES)) || !(G.lines_cap = global(s_LINES_CAP)))
        return -1;
    G.tag = tag;
    G.valid = 1;
    return 0;
}

/* "file:line" of code at a frame (the _LINES cache's entry, made if missing) */
static PyObject *line_of(Frame *f, PyCodeObject *code, PyObject *base)
{
    PyObject *lines, *cap, *key = NULL, *hit, *line, *res = NULL, *id, *lasti;
    if (globals_fresh() < 0)
        return NULL;
    lines = Py_NewRef(G.lines);
    cap = Py_NewRef(G.lines_cap);
    id = PyLong_FromVoidPtr(code);
    lasti = id ? PyLong_FromLong(frame_lasti(f)) : NULL;
    key = lasti ? PyTuple_New(2) : NULL;
    if (key == NULL) {
        Py_XDECREF(id);
        Py_XDECREF(lasti);
        goto done;
    }
    PyTuple_SET_ITEM(key, 0, id);
    PyTuple_SET_ITEM(key, 1, lasti);
    hit = PyDict_GetItemWithError(lines, key);
    if (hit == NULL && PyErr_Occurred())
        goto done;
    if (hit != NULL && PyTuple_Check(hit) && PyTuple_GET_SIZE(hit) == 2 && PyTuple_GET_ITEM(hit, 0) == (PyObject *)code) {
        res = Py_NewRef(PyTuple_GET_ITEM(hit, 1));
        goto done;
    }
    PyObject *size = PyLong_FromSsize_t(PyDict_Size(lines));
    int r = size ? PyObject_RichCompareBool(size, cap, Py_GE) : -1;
    Py_XDECREF(size);
    if (r < 0)
        goto done;
    if (r)
        PyDict_Clear(lines);
    int lineno = frame_lineno(f);
    line = lineno < 0 ? PyUnicode_FromFormat("%S:None", base) : PyUnicode_FromFormat("%S:%d", base, lineno);
    if (line == NULL)
        goto done;
    hit = PyTuple_Pack(2, (PyObject *)code, line);
    if (hit != NULL && PyDict_SetItem(lines, key, hit) == 0)
        res = Py_NewRef(line);
    Py_XDECREF(hit);
    Py_DECREF(line);
done:
    Py_XDECREF(key);
    Py_DECREF(lines);
    Py_DECREF(cap);
    return res;
}

/* The lines found last, by (code object, instruction offset), in front of the _LINES dict (whose lookup
   builds a key tuple of two ints): a code object's line at an offset never changes, nor does its file's
   basename, and an entry is made only for a frame found outside npusim. Direct-mapped; an entry holds its
   code object (its address is not reused while cached) and its "file:line". */
#define LINE_CACHE 1024
static struct {
    PyObject *code, *line;
    int lasti;
} line_cache[LINE_CACHE];

static inline Py_ssize_t line_slot(PyObject *code, int lasti)
{
    return (Py_ssize_t)((((uintptr_t)code >> 4) ^ ((uintptr_t)(unsigned)lasti * 2654435761u)) & (LINE_CACHE - 1));
}

/* file:line of the first frame from `f` outward whose file is outside the npusim package, through the
   same caches (_INSIDE, _BASENAMES, _LINES) as timeline.caller_source; "" when there is none.
   The SOURCE_OVERRIDE test is the caller's. */
static PyObject *source_from(Frame *f)
{
    if (globals_fresh() < 0)
        return NULL;
    PyObject *inside = G.inside, *basenames = G.basenames, *pkg_dir = G.pkg_dir;
    Py_INCREF(inside);
    Py_INCREF(basenames);
    Py_INCREF(pkg_dir);
    PyObject *res = NULL;
    frame_hold(f);
    while (f != NULL) {
        PyCodeObject *code = (PyCodeObject *)Py_NewRef(frame_code(f));
        PyObject *fn = code->co_filename, *base;
        int lasti = frame_lasti(f);
        Py_ssize_t slot = line_slot((PyObject *)code, lasti);
        if (line_cache[slot].code == (PyObject *)code && line_cache[slot].lasti == lasti) {
            res = Py_NewRef(line_cache[slot].line);
            Py_DECREF(code);
            break;
        }
        int r = PySet_Contains(inside, fn);
        if (r == 0) {
            base = PyDict_GetItemWithError(basenames, fn);
            Py_XINCREF(base);
            if (base == NULL && !PyErr_Occurred()) {
                r = PyUnicode_Tailmatch(fn, pkg_dir, 0, PY_SSIZE_T_MAX, -1);     /* fn.startswith(_PKG_DIR) */
                if (r == 1)
                    r = PySet_Add(inside, fn) < 0 ? -1 : 1;
                else if (r == 0 && ((base = PyObject_CallOneArg(basename_fn, fn)) == NULL ||
                                    PyDict_SetItem(basenames, fn, base) < 0))
                    r = -1;
            }
            if (r == 0 && base != NULL) {
                res = line_of(f, code, base);
                r = 2;      /* found (or failed: res NULL with an exception) */
                if (res != NULL && PyUnicode_CheckExact(res)) {
                    Py_XSETREF(line_cache[slot].code, Py_NewRef(code));
                    Py_XSETREF(line_cache[slot].line, Py_NewRef(res));
                    line_cache[slot].lasti = lasti;
                }
            } else if (base == NULL && r == 0) {
                r = -1;
            }
            Py_XDECREF(base);
        }
        Py_DECREF(code);
        if (r < 0 || r == 2)
            break;
        Frame *back = frame_back(f);
        frame_hold(back);
        frame_release(f);
        f = back;
    }
    if (f == NULL)
        res = Py_NewRef(str_empty);
    frame_release(f);
    Py_DECREF(inside);
    Py_DECREF(basenames);
    Py_DECREF(pkg_dir);
    return res;
}

/* timeline.caller_source() as seen from a C method called by the current Python frame */
static PyObject *caller_source(void)
{
    if (globals_fresh() < 0)
        return NULL;
    PyObject *override = G.override;
    if (PyList_Check(override) && PyList_GET_SIZE(override))
        return Py_NewRef(PyList_GET_ITEM(override, PyList_GET_SIZE(override) - 1));
    return source_from(frame_first());
}

/* ---- placing an instruction ---- */

/* options() through timeline.py's global of that name, as the Python methods call it */
static PyObject *options_fn, *options_code, *options_globals, *s_current;

/* opts.record_source as a truth value. Options is a frozen dataclass: the answer for the last options
   object is kept (with the object, so its address is not reused). */
static int record_source(PyObject *opts)
{
    static PyObject *last;
    static int answer;
    if (opts == last)
        return answer;
    PyObject *v = attr(opts, s_record_source);
    int r = v ? truth(v) : -1;
    Py_XDECREF(v);
    if (r >= 0) {
        Py_XSETREF(last, Py_NewRef(opts));
        answer = r;
    }
    return r;
}

static PyObject *call_options(void)
{
    if (globals_fresh() < 0)
        return NULL;
    /* options.options is `return _current`: while timeline.py's `options` is that function with its own
       code, read its module's _current (what the call returns) without making a frame */
    if (G.options == options_fn && PyFunction_Check(options_fn) &&
            PyFunction_GET_CODE(options_fn) == options_code) {
        PyObject *v = PyDict_GetItemWithError(options_globals, s_current);
        if (v != NULL)
            return Py_NewRef(v);
        if (PyErr_Occurred())
            return NULL;
    }
    return PyObject_CallNoArgs(G.options);
}

/* the Event of an instruction: trace.Event(...) without running its generated __init__ (which only
   stores the fields): the same object, its slots set through their descriptors in field order */
static PyObject *make_event(PyObject *const *fields, Py_ssize_t n)
{
    if (!PyTuple_Check(event_slots) || PyTuple_GET_SIZE(event_slots) != n) {
        PyErr_SetString(PyExc_TypeError, "timeline: trace.Event's fields changed; rebuild the extension");
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)EventType;
    PyObject *ev = type->tp_alloc(type, 0);
    if (ev == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *d = PyTuple_GET_ITEM(event_slots, k);
        if (Py_IS_TYPE(d, &PyMemberDescr_Type)) {
            /* what the descriptor's set does for a writable object slot of a fresh instance: a store */
            PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
            if (m->type == T_OBJECT_EX && !(m->flags & READONLY)) {
                Py_XSETREF(*(PyObject **)((char *)ev + m->offset), Py_NewRef(fields[k]));
                continue;
            }
        }
        if (Py_TYPE(d)->tp_descr_set(d, ev, fields[k]) < 0) {
            Py_DECREF(ev);
            return NULL;
        }
    }
    return ev;
}

/* an attribute `name` of o, plus one (eng.count + 1, eng.seq + 1), stored back; the new value (new ref) */
static PyObject *increment(PyObject *o, PyObject *name)
{
    PyObject *v = attr(o, name);
    if (v == NULL)
        return NULL;
    int overflow = 1;
    long long x = PyLong_CheckExact(v) ? PyLong_AsLongLongAndOverflow(v, &overflow) : 0;
    PyObject *w = !overflow && x < LLONG_MAX ? PyLong_FromLongLong(x + 1) : PyNumber_Add(v, long_1);
    Py_DECREF(v);
    if (w != NULL && set_attr(o, name, w) < 0)
        Py_CLEAR(w);
    return w;
}

/* v == 1 as Python evaluates it */
static int is_one(PyObject *v)
{
    if (PyLong_CheckExact(v)) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (x == -1 && PyErr_Occurred())
            return -1;
        return !overflow && x == 1;
    }
    return PyObject_RichCompareBool(v, long_1, Py_EQ);
}

/* self._used = [e for e in self.engines.values() if e.count] */
static int note_used(PyObject *self)
{
    PyObject *engines = attr(self, s_engines), *values = NULL, *used = NULL, *seq = NULL;
    int rc = -1;
    if (!engines || !(values = PyMapping_Values(engines)) || !(used = PyList_New(0)))
        goto done;
    if (!(seq = PySequence_Fast(values, "engines.values()")))
        goto done;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
        PyObject *e = PySequence_Fast_GET_ITEM(seq, k), *count = attr(e, s_count);
        int r = count ? truth(count) : -1;
        Py_XDECREF(count);
        if (r < 0 || (r && PyList_Append(used, e) < 0))
            goto done;
    }
    rc = set_attr(self, s_used, used);
done:
    Py_XDECREF(engines);
    Py_XDECREF(values);
    Py_XDECREF(used);
    Py_XDECREF(seq);
    return rc;
}

/* Timeline._record: the event of an instruction starting at `start`; advances its engine, remembers its
   accesses. args: eng, engine, name, cycles, start, reads, writes, sync, nbytes, elements, args, source */
static PyObject *record(PyObject *self, PyObject *const *a)
{
    PyObject *eng = a[0], *engine = a[1], *name = a[2], *cycles = a[3], *start = a[4], *reads = a[5],
             *writes = a[6], *sync = a[7];
    PyObject *freq = NULL, *tmp = NULL, *dur = NULL, *end = NULL, *core = NULL, *ev = NULL, *v = NULL,
             *seq = NULL, *clock = NULL, *trace = NULL, *events = NULL, *res = NULL;
    int r;
    if (!(freq = attr(eng, s_freq_hz)))
        goto done;
    if ((PyFloat_CheckExact(cycles) || PyLong_CheckExact(cycles)) && PyFloat_CheckExact(freq) &&
            PyFloat_AS_DOUBLE(freq) != 0.0 && PyFloat_CheckExact(start)) {
        /* cycles * 1e9 / freq and start + dur on doubles: what float's operators do (an int operand is
           converted by PyLong_AsDouble, as float * int converts it; -ffp-contract=off: no fused ops) */
        double c = PyFloat_CheckExact(cycles) ? PyFloat_AS_DOUBLE(cycles) : PyLong_AsDouble(cycles);
        if (c == -1.0 && PyErr_Occurred())
            goto done;
        double d = c * 1e9 / PyFloat_AS_DOUBLE(freq);
        if (!(dur = PyFloat_FromDouble(d)) || !(end = PyFloat_FromDouble(PyFloat_AS_DOUBLE(start) + d)))
            goto done;
    } else if (!(tmp = PyNumber_Multiply(cycles, float_1e9)) || !(dur = PyNumber_TrueDivide(tmp, freq)) ||
               !(end = PyNumber_Add(start, dur))) {
        goto done;
    }
    if (!(core = attr(self, s_core)))
        goto done;
    {
        PyObject *fields[11] = {core, engine, name, start, end, cycles, freq, a[8], a[9], a[11], a[10]};
        if (!(ev = make_event(fields, 11)))
            goto done;
    }
    if (set_attr(eng, s_free_ns, end) < 0 || !(v = attr(eng, s_busy_ns)))
        goto done;
    if (PyFloat_CheckExact(v) && PyFloat_CheckExact(dur))
        Py_SETREF(v, PyFloat_FromDouble(PyFloat_AS_DOUBLE(v) + PyFloat_AS_DOUBLE(dur)));
    else
        Py_SETREF(v, PyNumber_InPlaceAdd(v, dur));
    if (v == NULL || set_attr(eng, s_busy_ns, v) < 0)
        goto done;
    Py_CLEAR(v);
    if (!(v = increment(eng, s_count)) ||
            (r = is_one(v)) < 0)
        goto done;
    if (r && note_used(self) < 0)       /* its first instruction */
        goto done;
    if (!(seq = increment(eng, s_seq)) || !(clock = attr(eng, s_clock)) ||
        PyObject_SetItem(clock, engine, seq) < 0)
        goto done;
    if ((r = truth(reads)) < 0 || (!r && (r = truth(writes)) < 0))
        goto done;
    if (r) {
        PyObject *rargs[7] = {reads, writes, end, engine, seq, ev, sync};
        PyObject *x = remember(self, rargs, 7);
        if (x == NULL)
            goto done;
        Py_DECREF(x);
    }
    if (!(trace = attr(self, s_trace)) || !(events = attr(trace, s_events)))
        goto done;
    if (PyList_CheckExact(events)) {
        if (PyList_Append(events, ev) < 0)
            goto done;
    } else {
        PyObject *x = PyObject_CallMethod(events, "append", "O", ev);
        if (x == NULL)
            goto done;
        Py_DECREF(x);
    }
    if ((r = truth(active_traces)) < 0)
        goto done;
    if (r) {
        PyObject *list = PySequence_Fast(active_traces, "trace._active");
        if (list == NULL)
            goto done;
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(list); k++) {
            PyObject *t = PySequence_Fast_GET_ITEM(list, k);
            if (t == trace)
                continue;
            PyObject *x = PyObject_CallMethodObjArgs(t, s_add_event, ev, freq, NULL);
            if (x == NULL) {
                Py_DECREF(list);
                goto done;
            }
            Py_DECREF(x);
        }
        Py_DECREF(list);
    }
    res = Py_NewRef(ev);
done:
    Py_XDECREF(freq); Py_XDECREF(tmp); Py_XDECREF(dur); Py_XDECREF(end); Py_XDECREF(core); Py_XDECREF(ev);
    Py_XDECREF(v); Py_XDECREF(seq); Py_XDECREF(clock); Py_XDECREF(trace); Py_XDECREF(events);
    return res;
}

/* Bind fast-call arguments to parameters by name, as Python would for `def f(self, <names>)` where the
   first npos may be positional. out[k] is borrowed (NULL when missing: the caller puts the default). */
static int bind(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                PyObject **names, Py_ssize_t nnames, Py_ssize_t npos, PyObject **out)
{
    if (nargs > npos) {
        PyErr_Format(PyExc_TypeError, "Timeline.%s() takes %zd positional arguments but %zd were given", func,
                     npos + 1, nargs + 1);
        return -1;
    }
    for (Py_ssize_t k = 0; k < nnames; k++)
        out[k] = k < nargs ? args[k] : NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t j = 0; j < nkw; j++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, j);
        Py_ssize_t k = 0;
        while (k < nnames && key != names[k])     /* interned: the call site's names are these objects */
            k++;
        if (k == nnames)
            for (k = 0; k < nnames; k++)
                if (PyUnicode_Compare(key, names[k]) == 0)
                    break;
        if (k == nnames) {
            PyErr_Format(PyExc_TypeError, "Timeline.%s() got an unexpected keyword argument '%U'", func, key);
            return -1;
        }
        if (out[k] != NULL) {
            PyErr_Format(PyExc_TypeError, "Timeline.%s() got multiple values for argument '%U'", func, key);
            return -1;
        }
        out[k] = args[nargs + j];
    }
    return 0;
}

static PyObject *s_p_engine, *s_p_name, *s_p_cycles, *s_p_reads, *s_p_writes, *s_p_order, *s_p_not_before_ns,
    *s_p_nbytes, *s_p_elements, *s_p_args, *s_p_source, *s_p_read, *s_p_write;

/* reads / writes as place normalises them: a list or tuple (others listed), without None entries */
static PyObject *footprints(PyObject *fps)
{
    PyObject *seq = (PyList_Check(fps) || PyTuple_Check(fps)) ? Py_NewRef(fps) : PySequence_List(fps);
    if (seq == NULL)
        return NULL;
    int r = PySequence_Contains(seq, Py_None);
    if (r <= 0) {
        if (r < 0)
            Py_CLEAR(seq);
        return seq;
    }
    PyObject *out = PyList_New(0);
    for (Py_ssize_t k = 0; out != NULL && k < PySequence_Fast_GET_SIZE(seq); k++) {
        PyObject *f = PySequence_Fast_GET_ITEM(seq, k);
        if (f != Py_None && PyList_Append(out, f) < 0)
            Py_CLEAR(out);
    }
    Py_DECREF(seq);
    return out;
}

/* Timeline.place(engine, name, cycles, *, reads=(), writes=(), order="data", not_before_ns=0.0, nbytes=0,
   elements=0, args=None, source=None) */
static PyObject *place(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *names[11] = {s_p_engine, s_p_name, s_p_cycles, s_p_reads, s_p_writes, s_p_order,
                           s_p_not_before_ns, s_p_nbytes, s_p_elements, s_p_args, s_p_source};
    PyObject *p[11];
    if (bind("place", args, nargs, kwnames, names, 11, 3, p) < 0)
        return NULL;
    for (int k = 0; k < 3; k++)
        if (p[k] == NULL) {
            PyErr_Format(PyExc_TypeError, "Timeline.place() missing required argument: '%U'", names[k]);
            return NULL;
        }
    PyObject *engine = p[0], *order = p[5] ? p[5] : str_data, *not_before = p[6] ? p[6] : float_0;
    PyObject *engines = NULL, *eng = NULL, *opts = NULL, *start = NULL, *reads = NULL, *writes = NULL,
             *source = NULL, *res = NULL, *v = NULL;
    int r, is_sync = 0;
    if (!(engines = attr(self, s_engines)) || !(eng = PyObject_GetItem(engines, engine)) ||
        !(opts = call_options()) || !(start = attr(eng, s_free_ns)))
        goto done;
    if ((r = compare(not_before, start, Py_GT)) < 0)
        goto done;
    if (r)
        Py_SETREF(start, Py_NewRef(not_before));
    if (!(reads = footprints(p[3] ? p[3] : empty_tuple)) || !(writes = footprints(p[4] ? p[4] : empty_tuple)))
        goto done;
    if ((r = equal(order, str_data)) < 0)
        goto done;
    if (r) {
        /* seeded with the start so far: accesses ending before it cannot move it */
        PyObject *dargs[4] = {reads, writes, engine, start};
        PyObject *t = dependencies_end(self, dargs, 4);
        if (t == NULL)
            goto done;
        Py_SETREF(start, t);
    } else if ((is_sync = equal(order, str_sync)) < 0) {
        goto done;
    } else if (is_sync) {
        if (!(v = attr(opts, s_check_races)) || (r = truth(v)) < 0)
            goto done;
        Py_CLEAR(v);
        if (r) {
            PyObject *x = PyObject_CallMethodObjArgs(self, s_check_races_m, reads, writes, eng, p[1], NULL);
            if (x == NULL)
                goto done;
            Py_DECREF(x);
        }
    } else if ((r = equal(order, str_none)) <= 0) {
        if (r == 0)
            PyErr_Format(PyExc_ValueError, "order must be 'data', 'sync' or 'none', not %R", order);
        goto done;
    }
    source = Py_NewRef(p[10] ? p[10] : Py_None);
    if (source == Py_None) {
        if ((r = record_source(opts)) < 0)
            goto done;
        if (r) {
            Py_SETREF(source, caller_source());
            if (source == NULL)
                goto done;
        }
    }
    if ((r = truth(source)) < 0)        /* source or "" */
        goto done;
    if (!r)
        Py_SETREF(source, Py_NewRef(str_empty));
    {
        PyObject *rargs[12] = {eng, engine, p[1], p[2], start, reads, writes, is_sync ? Py_True : Py_False,
                               p[7] ? p[7] : long_0, p[8] ? p[8] : long_0, p[9] ? p[9] : Py_None, source};
        res = record(self, rargs);
    }
done:
    Py_XDECREF(engines); Py_XDECREF(eng); Py_XDECREF(opts); Py_XDECREF(start); Py_XDECREF(reads);
    Py_XDECREF(writes); Py_XDECREF(source); Py_XDECREF(v);
    return res;
}

/* Timeline.place_rw(engine, name, cycles, read, write, nbytes=0, elements=0, args=None) */
static PyObject *place_rw(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *names[8] = {s_p_engine, s_p_name, s_p_cycles, s_p_read, s_p_write, s_p_nbytes, s_p_elements,
                          s_p_args};
    PyObject *p[8];
    if (bind("place_rw", args, nargs, kwnames, names, 8, 8, p) < 0)
        return NULL;
    for (int k = 0; k < 5; k++)
        if (p[k] == NULL) {
            PyErr_Format(PyExc_TypeError, "Timeline.place_rw() missing required argument: '%U'", names[k]);
            return NULL;
        }
    PyObject *engine = p[0], *engines = NULL, *eng = NULL, *reads = NULL, *writes = NULL, *start = NULL,
             *opts = NULL, *source = NULL, *res = NULL, *v = NULL;
    int r;
    if (!(engines = attr(self, s_engines)) || !(eng = PyObject_GetItem(engines, engine)) ||
        !(reads = PyTuple_Pack(1, p[3])) || !(writes = PyTuple_Pack(1, p[4])) ||
        !(v = attr(eng, s_free_ns)))
        goto done;
    {
        PyObject *dargs[4] = {reads, writes, engine, v};
        if (!(start = dependencies_end(self, dargs, 4)))
            goto done;
    }
    Py_CLEAR(v);
    if (!(opts = call_options()) || (r = record_source(opts)) < 0)
        goto done;
    if (!(source = r ? caller_source() : Py_NewRef(str_empty)))
        goto done;
    {
        PyObject *rargs[12] = {eng, engine, p[1], p[2], start, reads, writes, Py_False, p[5] ? p[5] : long_0,
                               p[6] ? p[6] : long_0, p[7] ? p[7] : Py_None, source};
        res = record(self, rargs);
    }
done:
    Py_XDECREF(engines); Py_XDECREF(eng); Py_XDECREF(reads); Py_XDECREF(writes); Py_XDECREF(start);
    Py_XDECREF(opts); Py_XDECREF(source); Py_XDECREF(v);
    return res;
}

/* Timeline.place_data(engine, name, cycles, reads, write, nbytes, elements, args, not_before_ns): place in
   data order for a sequence of read footprints and one written footprint, every argument positional
   (front ends' per-instruction path: no keywords to bind, nothing to normalise) */
static PyObject *place_data(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "Timeline.place_data(engine, name, cycles, reads, write, nbytes, elements, "
                        "args, not_before_ns) takes 9 arguments");
        return NULL;
    }
    PyObject *engine = args[0], *engines = NULL, *eng = NULL, *writes = NULL, *start = NULL, *opts = NULL,
             *source = NULL, *res = NULL, *v = NULL;
    int r;
    if (!PyList_Check(args[3]) && !PyTuple_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "Timeline.place_data: reads must be a list or tuple of footprints");
        return NULL;
    }
    if (!(engines = attr(self, s_engines)) || !(eng = PyObject_GetItem(engines, engine)) ||
        !(writes = PyTuple_Pack(1, args[4])) || !(start = attr(eng, s_free_ns)))
        goto done;
    if ((r = compare(args[8], start, Py_GT)) < 0)       /* max(free, not_before): the first of equals */
        goto done;
    if (r)
        Py_SETREF(start, Py_NewRef(args[8]));
    {
        PyObject *dargs[4] = {args[3], writes, engine, start};
        if (!(v = dependencies_end(self, dargs, 4)))
            goto done;
        Py_SETREF(start, v);
        v = NULL;
    }
    if (!(opts = call_options()) || (r = record_source(opts)) < 0)
        goto done;
    if (!(source = r ? caller_source() : Py_NewRef(str_empty)))
        goto done;
    {
        PyObject *rargs[12] = {eng, engine, args[1], args[2], start, args[3], writes, Py_False, args[5], args[6],
                               args[7], source};
        res = record(self, rargs);
    }
done:
    Py_XDECREF(engines); Py_XDECREF(eng); Py_XDECREF(writes); Py_XDECREF(start); Py_XDECREF(opts);
    Py_XDECREF(source); Py_XDECREF(v);
    return res;
}

/* ---- the module ---- */

static PyObject *forget_log_cache(PyObject *self, PyObject *unused);

static PyMethodDef core_methods[] = {
    {"_dependencies_end", (PyCFunction)(void (*)(void))dependencies_end, METH_FASTCALL,
     "The later of t and the end of every remembered access that data order waits for (C)."},
    {"_remember", (PyCFunction)(void (*)(void))remember, METH_FASTCALL,
     "Remember an instruction's accesses (C)."},
    {"place", (PyCFunction)(void (*)(void))place, METH_FASTCALL | METH_KEYWORDS,
     "place(engine, name, cycles, *, reads=(), writes=(), order='data', not_before_ns=0.0, nbytes=0, "
     "elements=0, args=None, source=None) -> Event (C; timeline.Timeline.place_py is the reference)"},
    {"_forget_log_cache", forget_log_cache, METH_NOARGS, "Drop the memories whose logs are remembered (C)."},
    {"place_data", (PyCFunction)(void (*)(void))place_data, METH_FASTCALL,
     "place_data(engine, name, cycles, reads, write, nbytes, elements, args, not_before_ns) -> Event (C)"},
    {"place_rw", (PyCFunction)(void (*)(void))place_rw, METH_FASTCALL | METH_KEYWORDS,
     "place_rw(engine, name, cycles, read, write, nbytes=0, elements=0, args=None) -> Event (C)"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef core_members[] = {
    {"core", T_OBJECT_EX, offsetof(TimelineCoreObject, core), 0, NULL},
    {"engines", T_OBJECT_EX, offsetof(TimelineCoreObject, engines), 0, NULL},
    {"trace", T_OBJECT_EX, offsetof(TimelineCoreObject, trace), 0, NULL},
    {"_logs", T_OBJECT_EX, offsetof(TimelineCoreObject, logs), 0, NULL},
    {"_used", T_OBJECT_EX, offsetof(TimelineCoreObject, used), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

static int core_traverse(TimelineCoreObject *self, visitproc visit, void *arg)
{
    /* (a Python subclass's traverse visits its heap type itself) */
    Py_VISIT(self->core);
    Py_VISIT(self->engines);
    Py_VISIT(self->trace);
    Py_VISIT(self->logs);
    Py_VISIT(self->used);
    for (int k = 0; k < LOG_CACHE; k++)
        Py_VISIT(self->cache_mem[k]);
    return 0;
}

static int core_clear(TimelineCoreObject *self)
{
    Py_CLEAR(self->core);
    Py_CLEAR(self->engines);
    Py_CLEAR(self->trace);
    Py_CLEAR(self->logs);
    Py_CLEAR(self->used);
    cache_flush(self);
    return 0;
}

/* Timeline._forget_log_cache(): drop the memories log_of remembers (forget_accesses, reset) */
static PyObject *forget_log_cache(PyObject *self, PyObject *unused)
{
    cache_flush((TimelineCoreObject *)self);
    Py_RETURN_NONE;
}

static void core_dealloc(TimelineCoreObject *self)
{
    PyObject_GC_UnTrack(self);
    core_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject TimelineCore = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npusim.core._timeline_c.TimelineCore",
    .tp_basicsize = sizeof(TimelineCoreObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The C methods of timeline.Timeline (its base type when the extension is built).",
    .tp_methods = core_methods,
    .tp_members = core_members,
    .tp_traverse = (traverseproc)core_traverse,
    .tp_clear = (inquiry)core_clear,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_new = PyType_GenericNew,
};

/* configure(dict): what the C paths use from Python, by name */
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

static PyObject *configure(PyObject *mod, PyObject *d)
{
    PyObject *span = NULL, *after = NULL, *fresh = NULL, *min_shift = NULL;
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "configure(dict)");
        return NULL;
    }
    if (take(d, "MemoryLog", &MemoryLogType) < 0 || take(d, "build_index", &build_index_fn) < 0 ||
        take(d, "append", &append_fn) < 0 || take(d, "Event", &EventType) < 0 ||
        take(d, "event_slots", &event_slots) < 0 ||
        take(d, "active_traces", &active_traces) < 0 || take(d, "timeline_globals", &timeline_globals) < 0 ||
        take(d, "basename", &basename_fn) < 0 || take(d, "end_of", &end_of_fn) < 0 || take(d, "BUCKET_SPAN", &span) < 0 ||
        take(d, "INDEX_AFTER", &after) < 0 || take(d, "FRESH", &fresh) < 0 ||
        take(d, "MIN_SHIFT", &min_shift) < 0 ||
        take(d, "options", &options_fn) < 0 || take(d, "options_globals", &options_globals) < 0)
        goto fail;
    if (!PyType_Check(EventType) || !PyDict_Check(timeline_globals)) {
        PyErr_SetString(PyExc_TypeError, "configure: Event must be a type and timeline_globals a dict");
        goto fail;
    }
    BUCKET_SPAN = PyLong_AsSsize_t(span);
    INDEX_AFTER = PyLong_AsSsize_t(after);
    FRESH = PyLong_AsSsize_t(fresh);
    CLEAN_STEP = (FRESH - 2) / 2;       /* (access_log: FRESH = 2 + 2 * CLEAN_STEP) */
    if (PyErr_Occurred())
        goto fail;
    Py_XSETREF(options_code, PyFunction_Check(options_fn) ? Py_NewRef(PyFunction_GET_CODE(options_fn)) : NULL);
    if (!PyDict_Check(options_globals)) {
        PyErr_SetString(PyExc_TypeError, "configure: options_globals must be a dict");
        goto fail;
    }
    MIN_SHIFT = PyLong_AsSsize_t(min_shift);
    if (PyErr_Occurred())
        goto fail;
    Py_DECREF(span); Py_DECREF(after); Py_DECREF(fresh); Py_DECREF(min_shift);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(span); Py_XDECREF(after); Py_XDECREF(fresh); Py_XDECREF(min_shift);
    return NULL;
}

static PyMethodDef module_methods[] = {
    {"configure", (PyCFunction)configure, METH_O,
     "Give the module what it uses from Python (timeline_native.load passes it)."},
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
    INTERN(s_engines, "engines"); INTERN(s_free_ns, "free_ns"); INTERN(s_busy_ns, "busy_ns");
    INTERN(s_count, "count"); INTERN(s_seq, "seq"); INTERN(s_clock, "clock"); INTERN(s_freq_hz, "freq_hz");
    INTERN(s_core, "core"); INTERN(s_trace, "trace"); INTERN(s_events, "events"); INTERN(s_used, "_used");
    INTERN(s_add_event, "add_event"); INTERN(s_check_races, "check_races");
    INTERN(s_record_source, "record_source"); INTERN(s_check_races_m, "_check_races");
    INTERN(s_SOURCE_OVERRIDE, "SOURCE_OVERRIDE"); INTERN(s_INSIDE, "_INSIDE");
    INTERN(s_BASENAMES, "_BASENAMES"); INTERN(s_PKG_DIR, "_PKG_DIR"); INTERN(s_LINES, "_LINES");
    INTERN(s_LINES_CAP, "_LINES_CAP"); INTERN(s_options, "options"); INTERN(s_current, "_current");
    INTERN(s_prune_py, "_prune"); INTERN(s_MAX_TRACKED, "MAX_TRACKED"); INTERN(s_archive, "archive");
    INTERN(s_fold, "_fold"); INTERN(s_name, "name"); INTERN(s_ARCHIVE_CAP, "ARCHIVE_CAP");
    INTERN(s_archive_horizon, "archive_horizon"); INTERN(s_sort, "sort");
    if (!(kw_key = Py_BuildValue("(s)", "key")))
        return NULL;
    INTERN(s_p_engine, "engine"); INTERN(s_p_name, "name"); INTERN(s_p_cycles, "cycles");
    INTERN(s_p_reads, "reads"); INTERN(s_p_writes, "writes"); INTERN(s_p_order, "order");
    INTERN(s_p_not_before_ns, "not_before_ns"); INTERN(s_p_nbytes, "nbytes"); INTERN(s_p_elements, "elements");
    INTERN(s_p_args, "args"); INTERN(s_p_source, "source"); INTERN(s_p_read, "read"); INTERN(s_p_write, "write");
    INTERN(str_empty, ""); INTERN(str_data, "data"); INTERN(str_sync, "sync"); INTERN(str_none, "none");
    if (!(float_0 = PyFloat_FromDouble(0.0)) || !(float_1e9 = PyFloat_FromDouble(1e9)) ||
        !(long_0 = PyLong_FromLong(0)) || !(long_1 = PyLong_FromLong(1)) || !(empty_tuple = PyTuple_New(0)))
        return NULL;
    if (PyType_Ready(&TimelineCore) < 0)
        return NULL;
    LogBase.tp_getset = log_getset;
    LogBase.tp_methods = log_methods;
    if (PyType_Ready(&LogBase) < 0)
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
    Py_INCREF(&LogBase);
    if (PyModule_AddObject(m, "MemoryLogBase", (PyObject *)&LogBase) < 0) {
        Py_DECREF(&LogBase);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
