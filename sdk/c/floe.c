/*
 * floe.c: the C SDK's runtime: the module's exports, the host's imports and
 * the wire layouts of Floe's ABI version 1 (sdk/ABI.md). The API is floe.h.
 *
 * The host instantiates a module once per operator subtask and calls it from
 * one thread, so one set of globals is one operator.
 */
#include "floe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ---------------------------------------------------------- host imports */

#define FLOE_IMPORT(name) __attribute__((import_module("floe_v1"), import_name(name)))

FLOE_IMPORT("emit") void floe__emit(const void *p, int32_t n);
FLOE_IMPORT("output_declare") int32_t floe__output_declare(const void *p, int32_t n);
FLOE_IMPORT("fail") void floe__fail(int32_t rec, const void *p, int32_t n);
FLOE_IMPORT("log") void floe__log(int32_t level, const void *p, int32_t n);
FLOE_IMPORT("state_declare") int32_t floe__state_declare(int32_t kind, const void *p, int32_t n, int32_t flags);
FLOE_IMPORT("value_get") int32_t floe__value_get(int32_t s, int32_t rec, void *buf, int32_t cap);
FLOE_IMPORT("value_put") void floe__value_put(int32_t s, int32_t rec, const void *p, int32_t n);
FLOE_IMPORT("value_delete") void floe__value_delete(int32_t s, int32_t rec);
FLOE_IMPORT("list_append") void floe__list_append(int32_t s, int32_t rec, const void *p, int32_t n);
FLOE_IMPORT("list_get") int32_t floe__list_get(int32_t s, int32_t rec, void *buf, int32_t cap);
FLOE_IMPORT("list_clear") void floe__list_clear(int32_t s, int32_t rec);
FLOE_IMPORT("map_get")
int32_t floe__map_get(int32_t s, int32_t rec, const void *k, int32_t kn, void *buf, int32_t cap);
FLOE_IMPORT("map_put")
void floe__map_put(int32_t s, int32_t rec, const void *k, int32_t kn, const void *v, int32_t vn);
FLOE_IMPORT("map_delete") void floe__map_delete(int32_t s, int32_t rec, const void *k, int32_t kn);
FLOE_IMPORT("map_entries") int32_t floe__map_entries(int32_t s, int32_t rec, void *buf, int32_t cap);
FLOE_IMPORT("map_clear") void floe__map_clear(int32_t s, int32_t rec);
FLOE_IMPORT("timer_register") void floe__timer_register(int32_t rec, int32_t domain, int64_t ts);
FLOE_IMPORT("timer_delete") void floe__timer_delete(int32_t rec, int32_t domain, int64_t ts);
FLOE_IMPORT("current_watermark") int64_t floe__current_watermark(void);
FLOE_IMPORT("processing_time") int64_t floe__processing_time(void);

/* The state kinds of state_declare. */
enum { KIND_VALUE = 1, KIND_LIST = 2, KIND_MAP = 3 };

/* ------------------------------------------------------------- memory */

/* oom reports running out of memory the way the host recognises ("out of
 * memory" on stderr) and stops the instance. */
static void oom(void) {
    static const char msg[] = "floe: out of memory\n";
    write(2, msg, sizeof msg - 1);
    abort();
}

void floe_buf_grow(floe_buf *b, size_t n) {
    if (b->cap - b->len >= n) return;
    size_t want = b->len + n;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < want) cap *= 2;
    uint8_t *p = (uint8_t *)realloc(b->data, cap);
    if (!p) oom();
    b->data = p;
    b->cap = cap;
}

void floe_buf_free(floe_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* zero_bytes returns a word with the high bit set in each byte of x that is
 * zero and in no other (no borrow crosses bytes). */
static inline uint64_t zero_bytes(uint64_t x) {
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;
    return ~(((x & low7) + low7) | x | low7);
}

ptrdiff_t floe_index_byte(const void *data, size_t len, uint8_t c) {
    const uint8_t *p = (const uint8_t *)data;
    const uint64_t pattern = 0x0101010101010101ULL * c;
    size_t i = 0;
    uint64_t w, m;
    for (; len - i >= 8; i += 8) {
        memcpy(&w, p + i, 8);
        if ((m = zero_bytes(w ^ pattern)) != 0) return (ptrdiff_t)(i + (size_t)(__builtin_ctzll(m) >> 3));
    }
    size_t rest = len - i;
    if (rest == 0) return -1;
    w = 0;
    memcpy(&w, p + i, rest);
    m = zero_bytes(w ^ pattern) & (((uint64_t)1 << (rest * 8)) - 1);
    return m ? (ptrdiff_t)(i + (size_t)(__builtin_ctzll(m) >> 3)) : -1;
}

/* digit_pairs is "00" to "99", for formatting two digits per step. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* format_i64 writes v in decimal to the end of buf[0:20] and returns where
 * it starts. */
static char *format_i64(char buf[20], int64_t v) {
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *p = buf + 20;
    while (u >= 100) {
        unsigned d = (unsigned)(u % 100) * 2;
        u /= 100;
        *--p = digit_pairs[d + 1];
        *--p = digit_pairs[d];
    }
    if (u >= 10) {
        *--p = digit_pairs[u * 2 + 1];
        *--p = digit_pairs[u * 2];
    } else {
        *--p = (char)('0' + u);
    }
    if (v < 0) *--p = '-';
    return p;
}

void floe_buf_append_i64(floe_buf *b, int64_t v) {
    char buf[20];
    char *p = format_i64(buf, v);
    floe_buf_append(b, p, (size_t)(buf + 20 - p));
}

bool floe_parse_i64(floe_bytes b, int64_t *out) {
    size_t i = 0;
    bool neg = false;
    if (b.len > 0 && (b.data[0] == '-' || b.data[0] == '+')) {
        neg = b.data[0] == '-';
        i = 1;
    }
    if (i == b.len) return false;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t u = 0;
    for (; i < b.len; i++) {
        unsigned d = (unsigned)b.data[i] - '0';
        if (d > 9 || u > (limit - d) / 10) return false;
        u = u * 10 + d;
    }
    *out = neg ? (int64_t)((uint64_t)0 - u) : (int64_t)u;
    return true;
}

static inline uint32_t load_u32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline int64_t load_i64(const uint8_t *p) {
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* ------------------------------------------------------------ registry */

enum kind { K_MAP, K_FILTER, K_FLAT_MAP, K_PROCESS, K_KEY_SELECTOR, K_AGGREGATE };

struct floe_function {
    const char *name;
    enum kind kind;
    union {
        floe_map_fn map;
        floe_filter_fn filter;
        floe_flat_map_fn flat_map;
        floe_process_fn process;
    } fn;
    floe_sql_fn sql; /* a SQL function's, run by sql_map */
    floe_sql_table_fn sql_table;         /* a SQL table function's, run by sql_table_map */
    const floe_sql_aggregate *sql_agg;   /* a SQL aggregate's, run by floe_window */
    floe_hook_fn open, close;
    floe_timer_fn on_timer;
    struct floe_function *next;
};

/* hook is one module-wide open or close hook. */
struct hook {
    floe_hook_fn fn;
    struct hook *next;
};

static struct {
    floe_function *functions, *functions_tail;
    struct hook *open_hooks, *close_hooks;
    const char *duplicate; /* a name registered twice, reported at open */
} reg;

static floe_function *register_function(const char *name, enum kind kind) {
    for (floe_function *f = reg.functions; f; f = f->next)
        if (strcmp(f->name, name) == 0 && !reg.duplicate) reg.duplicate = name;
    floe_function *f = (floe_function *)calloc(1, sizeof *f);
    if (!f) oom();
    f->name = name;
    f->kind = kind;
    if (reg.functions_tail)
        reg.functions_tail->next = f;
    else
        reg.functions = f;
    reg.functions_tail = f;
    return f;
}

floe_function *floe_register_map(const char *name, floe_map_fn fn) {
    floe_function *f = register_function(name, K_MAP);
    f->fn.map = fn;
    return f;
}

floe_function *floe_register_filter(const char *name, floe_filter_fn fn) {
    floe_function *f = register_function(name, K_FILTER);
    f->fn.filter = fn;
    return f;
}

floe_function *floe_register_flat_map(const char *name, floe_flat_map_fn fn) {
    floe_function *f = register_function(name, K_FLAT_MAP);
    f->fn.flat_map = fn;
    return f;
}

floe_function *floe_register_process(const char *name, floe_process_fn fn) {
    floe_function *f = register_function(name, K_PROCESS);
    f->fn.process = fn;
    return f;
}

floe_function *floe_register_key_selector(const char *name, floe_map_fn fn) {
    floe_function *f = register_function(name, K_KEY_SELECTOR);
    f->fn.map = fn;
    return f;
}

void floe_function_on_open(floe_function *f, floe_hook_fn fn) { f->open = fn; }
void floe_function_on_close(floe_function *f, floe_hook_fn fn) { f->close = fn; }
void floe_function_on_timer(floe_function *f, floe_timer_fn fn) { f->on_timer = fn; }

static void add_hook(struct hook **list, floe_hook_fn fn) {
    struct hook *h = (struct hook *)calloc(1, sizeof *h);
    if (!h) oom();
    h->fn = fn;
    while (*list) list = &(*list)->next;
    *list = h;
}

void floe_on_open(floe_hook_fn fn) { add_hook(&reg.open_hooks, fn); }
void floe_on_close(floe_hook_fn fn) { add_hook(&reg.close_hooks, fn); }

/* ------------------------------------------------------------ operator */

/* FLUSH_SIZE is how much output the SDK buffers before handing it to the
 * host in the middle of a batch. */
#define FLUSH_SIZE (256 << 10)

/* OUT_HEADER is an output record's fixed part: u32 port, u32 value_len,
 * i64 timestamp. IN_HEADER is an input record's: u32 key_len,
 * u32 value_len, i64 timestamp. */
#define OUT_HEADER 16
#define IN_HEADER 16

/* param is one entry of the parameter block, NUL-terminated copies. */
struct param {
    char *key, *value;
};

static struct {
    uint8_t *in;            /* the buffer the host writes into (floe_alloc) */
    floe_buf out;           /* buffered output records */
    floe_buf map_out;       /* a map function's result */
    floe_buf scratch;       /* floe_scratch */
    floe_function *fn;      /* the function the operator runs */
    floe_function *fn2;     /* a two-input operator's second function (floe.function2), or NULL */
    struct param *params;
    uint32_t nparams;
    floe_ctx ctx;
    bool failed;            /* the current call recorded an error */
    char msg[1024];         /* its message */
} op;

floe_port floe_output(const char *name) { return floe__output_declare(name, (int32_t)strlen(name)); }

void floe_emit_at(floe_ctx *ctx, floe_port port, const void *value, size_t len, int64_t ts) {
    (void)ctx;
    uint8_t *p = floe_buf_reserve(&op.out, OUT_HEADER + len);
    uint32_t port32 = (uint32_t)port, len32 = (uint32_t)len;
    memcpy(p, &port32, 4);
    memcpy(p + 4, &len32, 4);
    memcpy(p + 8, &ts, 8);
    if (len) memcpy(p + OUT_HEADER, value, len);
    op.out.len += OUT_HEADER + len;
    if (op.out.len >= FLUSH_SIZE) {
        floe__emit(op.out.data, (int32_t)op.out.len);
        op.out.len = 0;
    }
}

/* flush hands buffered output to the host. */
static void flush(void) {
    if (op.out.len > 0) {
        floe__emit(op.out.data, (int32_t)op.out.len);
        op.out.len = 0;
    }
}

static void set_error(const char *format, va_list ap) {
    if (op.failed) return;
    op.failed = true;
    vsnprintf(op.msg, sizeof op.msg, format, ap);
}

int floe_error(floe_ctx *ctx, const char *format, ...) {
    (void)ctx;
    va_list ap;
    va_start(ap, format);
    set_error(format, ap);
    va_end(ap);
    return FLOE_FAILED;
}

/* sdk_error is floe_error for the SDK's own failures. */
static int sdk_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
static int sdk_error(const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    set_error(format, ap);
    va_end(ap);
    return FLOE_FAILED;
}

void floe_log(floe_log_level level, const char *format, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(line, sizeof line, format, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof line) n = sizeof line - 1;
    floe__log((int32_t)level, line, n);
}

/* finish ends an export's call: it flushes the output and, when rc or a
 * recorded error says the call failed, reports it for record rec. */
static int32_t finish(int rc, int32_t rec) {
    flush();
    if (rc == 0 && !op.failed) return 0;
    if (!op.failed) sdk_error("function \"%s\" returned %d without calling floe_error", op.fn ? op.fn->name : "?", rc);
    floe__fail(rec, op.msg, (int32_t)strlen(op.msg));
    op.failed = false;
    return 1;
}

/* reset_ctx scopes the context to record rec. */
static inline void reset_ctx(int32_t rec, floe_bytes key, int64_t ts) {
    op.ctx.rec = rec;
    op.ctx.key = key;
    op.ctx.timestamp = ts;
    op.ctx.out_ts = ts;
}

/* ---------------------------------------------------------- parameters */

const char *floe_param(const char *name) {
    for (uint32_t i = 0; i < op.nparams; i++)
        if (strcmp(op.params[i].key, name) == 0) return op.params[i].value;
    return NULL;
}

const char *floe_param_or(const char *name, const char *def) {
    const char *v = floe_param(name);
    return v ? v : def;
}

int floe_param_i64(floe_ctx *ctx, const char *name, int64_t def, int64_t *out) {
    const char *v = floe_param(name);
    if (!v) {
        *out = def;
        return 0;
    }
    if (!floe_parse_i64(floe_str(v), out)) return floe_error(ctx, "parameter %s: \"%s\" is not an integer", name, v);
    return 0;
}

const char *floe_function_name(void) { return op.fn ? op.fn->name : ""; }

/* read_string reads one u32-length-prefixed string of the parameter block
 * into a NUL-terminated copy. */
static bool read_string(const uint8_t **p, const uint8_t *end, char **out) {
    if (end - *p < 4) return false;
    uint32_t n = load_u32(*p);
    *p += 4;
    if ((size_t)(end - *p) < n) return false;
    char *s = (char *)malloc((size_t)n + 1);
    if (!s) oom();
    memcpy(s, *p, n);
    s[n] = 0;
    *p += n;
    *out = s;
    return true;
}

/* decode_params reads the parameter block (u32 count, then count pairs of
 * length-prefixed key and value). */
static int decode_params(const uint8_t *buf, size_t len) {
    const uint8_t *p = buf, *end = buf + len;
    if (len < 4) return sdk_error("floe: parameter block of %zu bytes", len);
    uint32_t n = load_u32(p);
    p += 4;
    if (n > len / 8) return sdk_error("floe: truncated buffer");
    op.params = (struct param *)calloc(n ? n : 1, sizeof *op.params);
    if (!op.params) oom();
    for (uint32_t i = 0; i < n; i++) {
        if (!read_string(&p, end, &op.params[i].key) || !read_string(&p, end, &op.params[i].value))
            return sdk_error("floe: truncated buffer");
        op.nparams = i + 1;
    }
    return 0;
}

/* ------------------------------------------------------------- exports */

__attribute__((export_name("floe_alloc"))) int32_t floe__export_alloc(int32_t size) {
    free(op.in);
    op.in = (uint8_t *)malloc(size > 0 ? (size_t)size : 1);
    if (!op.in) oom();
    return (int32_t)(uintptr_t)op.in;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int compare_functions(const void *a, const void *b) {
    return strcmp((*(const floe_function *const *)a)->name, (*(const floe_function *const *)b)->name);
}

/* unknown_function fails the open naming the function and the module's
 * functions, sorted. */
static int unknown_function(const char *name) {
    size_t n = 0;
    for (floe_function *f = reg.functions; f; f = f->next) n++;
    const char **names = (const char **)calloc(n ? n : 1, sizeof *names);
    if (!names) oom();
    n = 0;
    for (floe_function *f = reg.functions; f; f = f->next) names[n++] = f->name;
    qsort(names, n, sizeof *names, compare_names);
    floe_buf b = {0};
    floe_buf_append_str(&b, "no function \"");
    floe_buf_append_str(&b, name);
    floe_buf_append_str(&b, "\" in this module (registered: [");
    for (size_t i = 0; i < n; i++) {
        if (i) floe_buf_append_byte(&b, ' ');
        floe_buf_append_str(&b, names[i]);
    }
    floe_buf_append_str(&b, "])");
    floe_buf_append_byte(&b, 0);
    sdk_error("%s", (const char *)b.data);
    floe_buf_free(&b);
    free(names);
    return FLOE_FAILED;
}

/* init_once runs the module's floe_init, which registers its functions,
 * the first time it is called. */
static void init_once(void) {
    static bool initialised;
    if (!initialised) {
        initialised = true;
        floe_init();
    }
}

static const char *const kind_names[] = {
    [K_MAP] = "map", [K_FILTER] = "filter", [K_FLAT_MAP] = "flatMap",
    [K_PROCESS] = "process", [K_KEY_SELECTOR] = "keySelector", [K_AGGREGATE] = "aggregate",
};

static void append_u32(floe_buf *b, uint32_t v) {
    uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    floe_buf_append(b, le, 4);
}

/* floe_functions lays out the registered functions and their kinds, sorted
 * by name (u32 count, then count x {u32 name_len, name, u32 kind_len,
 * kind}), and returns its address << 32 | its length. */
__attribute__((export_name("floe_functions"))) int64_t floe__export_functions(void) {
    static floe_buf table;
    init_once();
    size_t n = 0;
    for (floe_function *f = reg.functions; f; f = f->next) n++;
    const floe_function **fns = (const floe_function **)calloc(n ? n : 1, sizeof *fns);
    if (!fns) oom();
    n = 0;
    for (floe_function *f = reg.functions; f; f = f->next) fns[n++] = f;
    qsort(fns, n, sizeof *fns, compare_functions);
    table.len = 0;
    append_u32(&table, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        const char *kind = kind_names[fns[i]->kind];
        append_u32(&table, (uint32_t)strlen(fns[i]->name));
        floe_buf_append_str(&table, fns[i]->name);
        append_u32(&table, (uint32_t)strlen(kind));
        floe_buf_append_str(&table, kind);
    }
    free(fns);
    return (int64_t)(uint32_t)(uintptr_t)table.data << 32 | (int64_t)table.len;
}

/* open selects the function named by the parameters and runs the open
 * hooks. */
static int open_operator(int32_t n) {
    if (decode_params(op.in, (size_t)n) != 0) return FLOE_FAILED;
    init_once();
    if (reg.duplicate) return sdk_error("function \"%s\" registered twice", reg.duplicate);
    const char *name = floe_param_or("floe.function", "");
    const char *name2 = floe_param_or("floe.function2", "");
    for (floe_function *f = reg.functions; f; f = f->next) {
        if (strcmp(f->name, name) == 0) op.fn = f;
        if (name2[0] && strcmp(f->name, name2) == 0) op.fn2 = f;
    }
    if (!op.fn) return unknown_function(name);
    if (name2[0] && !op.fn2) return unknown_function(name2);
    op.ctx.scratch = &op.scratch;
    reset_ctx(-1, floe_bytes_of(NULL, 0), FLOE_NO_TIMESTAMP);
    for (struct hook *h = reg.open_hooks; h; h = h->next) {
        int rc = h->fn(&op.ctx);
        if (rc != 0 || op.failed) return rc ? rc : FLOE_FAILED;
    }
    int rc = op.fn->open ? op.fn->open(&op.ctx) : 0;
    if (rc != 0 || op.failed || !op.fn2 || op.fn2 == op.fn) return rc;
    return op.fn2->open ? op.fn2->open(&op.ctx) : 0;
}

__attribute__((export_name("floe_open"))) int32_t floe__export_open(int32_t n) {
    return finish(open_operator(n), -1);
}

/* call applies function f to one record's value; non-zero means failed. */
static inline int call(floe_function *f, floe_bytes value) {
    switch (f->kind) {
    case K_MAP:
    case K_KEY_SELECTOR: {
        op.map_out.len = 0;
        int rc = f->fn.map(&op.ctx, value, &op.map_out);
        if (rc == 0 && !op.failed) floe_emit_at(&op.ctx, FLOE_MAIN, op.map_out.data, op.map_out.len, op.ctx.out_ts);
        return rc;
    }
    case K_FILTER: {
        int keep = f->fn.filter(&op.ctx, value);
        if (keep > 0 && !op.failed) floe_emit_at(&op.ctx, FLOE_MAIN, value.data, value.len, op.ctx.out_ts);
        return keep < 0 ? keep : 0;
    }
    case K_FLAT_MAP:
        return f->fn.flat_map(&op.ctx, value);
    case K_PROCESS:
        return f->fn.process(&op.ctx, value);
    case K_AGGREGATE:
        return sdk_error("function %s is an aggregate function: it runs in a window (floe_window), not on records", f->name);
    }
    return 0;
}

/* process runs f over a batch of count records in the buffer's first n
 * bytes. */
static int32_t process(floe_function *f, int32_t n, int32_t count) {
    const uint8_t *p = op.in, *end = op.in + n;
    for (int32_t i = 0; i < count; i++) {
        if (end - p < IN_HEADER) return finish(sdk_error("floe: truncated buffer"), i);
        uint32_t kl = load_u32(p), vl = load_u32(p + 4);
        int64_t ts = load_i64(p + 8);
        p += IN_HEADER;
        if ((size_t)(end - p) < (size_t)kl + vl) return finish(sdk_error("floe: truncated buffer"), i);
        reset_ctx(i, floe_bytes_of(p, kl), ts);
        int rc = call(f, floe_bytes_of(p + kl, vl));
        if (rc != 0 || op.failed) return finish(rc, i);
        p += kl + vl;
    }
    return finish(0, -1);
}

__attribute__((export_name("floe_process"))) int32_t floe__export_process(int32_t n, int32_t count) {
    return process(op.fn, n, count);
}

/* floe_process2 runs a two-input operator's second function (sdk/ABI.md,
 * "Two-input operators"). */
__attribute__((export_name("floe_process2"))) int32_t floe__export_process2(int32_t n, int32_t count) {
    if (!op.fn2) return finish(sdk_error("floe_process2 called, but the operator has no floe.function2"), -1);
    return process(op.fn2, n, count);
}

__attribute__((export_name("floe_on_timer"))) int32_t floe__export_on_timer(int32_t domain, int64_t ts,
                                                                          int32_t key_len) {
    if (!op.fn) return finish(sdk_error("a timer fired before the operator opened"), -1);
    /* A two-input operator's timers go to its first function's handler,
     * or to its second's when the first has none. */
    floe_timer_fn handler = op.fn->on_timer;
    if (!handler && op.fn2) handler = op.fn2->on_timer;
    if (!handler)
        return finish(sdk_error("a timer fired but function %s has no timer handler (floe_function_on_timer)",
                                op.fn->name),
                      -1);
    reset_ctx(0, floe_bytes_of(op.in, (size_t)key_len), domain == FLOE_EVENT_TIME ? ts : FLOE_NO_TIMESTAMP);
    return finish(handler(&op.ctx, (floe_time_domain)domain, ts), -1);
}

__attribute__((export_name("floe_close"))) int32_t floe__export_close(void) {
    reset_ctx(-1, floe_bytes_of(NULL, 0), FLOE_NO_TIMESTAMP);
    int rc = 0;
    if (op.fn && op.fn->close) rc = op.fn->close(&op.ctx);
    if (op.fn2 && op.fn2 != op.fn && op.fn2->close) {
        int r = op.fn2->close(&op.ctx);
        if (rc == 0) rc = r;
    }
    for (struct hook *h = reg.close_hooks; h; h = h->next) {
        int r = h->fn(&op.ctx);
        if (rc == 0) rc = r;
    }
    return finish(rc, -1);
}

/* --------------------------------------------------------------- state */

/* states holds, by id, the declared states' names (for messages) and the
 * buffer each state's reads go to: the bytes one state read returns stay
 * valid until the next read of the same state, whatever other states are
 * read meanwhile. */
static struct {
    char **names;
    floe_buf *bufs;
    int32_t len;
} states;

/* other_buf holds the reads of a state id the SDK did not declare; the host
 * traps on such an id, so it is never handed out. */
static floe_buf other_buf;

static floe_state declare(int32_t kind, const char *name, int flags) {
    floe_state id = floe__state_declare(kind, name, (int32_t)strlen(name), flags);
    if (id >= states.len) {
        char **names = (char **)realloc(states.names, (size_t)(id + 1) * sizeof *names);
        if (!names) oom();
        states.names = names;
        floe_buf *bufs = (floe_buf *)realloc(states.bufs, (size_t)(id + 1) * sizeof *bufs);
        if (!bufs) oom();
        states.bufs = bufs;
        for (int32_t i = states.len; i <= id; i++) {
            names[i] = NULL;
            bufs[i] = (floe_buf){0};
        }
        states.len = id + 1;
    }
    if (id >= 0 && !states.names[id]) {
        states.names[id] = strdup(name);
        if (!states.names[id]) oom();
    }
    return id;
}

static const char *state_name(floe_state s) {
    return s >= 0 && s < states.len && states.names[s] ? states.names[s] : "?";
}

static floe_buf *state_buf(floe_state s) { return s >= 0 && s < states.len ? &states.bufs[s] : &other_buf; }

/* bad_i64 fails the call: an int64 state value that is not 8 bytes. */
static int bad_i64(floe_state s, int32_t n) {
    return sdk_error("state \"%s\": int64 state value of %d bytes, want 8", state_name(s), (int)n);
}

floe_state floe_value_state(const char *name, int flags) { return declare(KIND_VALUE, name, flags); }
floe_state floe_list_state(const char *name, int flags) { return declare(KIND_LIST, name, flags); }
floe_state floe_map_state(const char *name, int flags) { return declare(KIND_MAP, name, flags); }

floe_state floe_operator_list_state(const char *name, floe_redistribution mode, int flags) {
    return declare((int32_t)mode, name, flags);
}

/* getter is a host call that reads a state's bytes into (buf, cap) and
 * returns their length, or -1 when absent. */
typedef int32_t (*getter)(int32_t s, int32_t rec, void *buf, int32_t cap);

/* read calls get with state s's buffer, growing it until the bytes fit. It
 * returns FLOE_FOUND or FLOE_ABSENT. */
static int read_state(getter get, floe_state s, int32_t rec, floe_bytes *out) {
    floe_buf *b = state_buf(s);
    for (;;) {
        int32_t n = get(s, rec, b->data, (int32_t)b->cap);
        if (n < 0) return FLOE_ABSENT;
        if ((size_t)n <= b->cap) {
            *out = floe_bytes_of(b->data, (size_t)n);
            return FLOE_FOUND;
        }
        b->len = 0;
        floe_buf_grow(b, (size_t)n + (size_t)n / 4);
    }
}

int floe_value_get(floe_ctx *ctx, floe_state s, floe_bytes *out) {
    return read_state(floe__value_get, s, ctx->rec, out);
}

/* get_i64 ends an int64 read that returned n bytes into v. */
static int get_i64(floe_state s, int32_t n, int64_t v, int64_t *out) {
    if (n < 0) return FLOE_ABSENT;
    if (n != 8) return bad_i64(s, n);
    *out = v;
    return FLOE_FOUND;
}

int floe_value_get_i64(floe_ctx *ctx, floe_state s, int64_t *out) {
    int64_t v = 0;
    return get_i64(s, floe__value_get(s, ctx->rec, &v, 8), v, out);
}

void floe_value_put(floe_ctx *ctx, floe_state s, const void *value, size_t len) {
    floe__value_put(s, ctx->rec, value, (int32_t)len);
}

void floe_value_put_i64(floe_ctx *ctx, floe_state s, int64_t v) { floe__value_put(s, ctx->rec, &v, 8); }

void floe_value_delete(floe_ctx *ctx, floe_state s) { floe__value_delete(s, ctx->rec); }

/* truncated fails the call: the host's list or map bytes end inside an
 * element. The iterator stops there. */
static bool truncated(floe_iter *it) {
    sdk_error("state \"%s\": truncated %s", state_name(it->state), it->map ? "map entries" : "list");
    it->next = it->end;
    return false;
}

/* next_elem reads one u32-length-prefixed element; at the end it returns
 * false, and on a truncated element it fails the call and returns false. */
static bool next_elem(floe_iter *it, floe_bytes *elem) {
    if (it->next == it->end) return false;
    if (it->end - it->next < 4) return truncated(it);
    uint32_t n = load_u32(it->next);
    if ((size_t)(it->end - it->next - 4) < n) return truncated(it);
    *elem = floe_bytes_of(it->next + 4, n);
    it->next += 4 + n;
    return true;
}

bool floe_list_next(floe_iter *it, floe_bytes *elem) { return next_elem(it, elem); }

bool floe_map_next(floe_iter *it, floe_bytes *key, floe_bytes *value) {
    if (!next_elem(it, key)) return false;
    if (it->next == it->end) return truncated(it);
    return next_elem(it, value);
}

/* start sets it on the bytes a list or map read of state s returned. */
static bool start(int found, floe_bytes b, floe_state s, bool map, floe_iter *it) {
    it->next = b.data;
    it->end = b.data + (found == FLOE_FOUND ? b.len : 0);
    it->state = s;
    it->map = map;
    return found == FLOE_FOUND && b.len > 0;
}

void floe_list_append(floe_ctx *ctx, floe_state s, const void *value, size_t len) {
    floe__list_append(s, ctx->rec, value, (int32_t)len);
}

bool floe_list_get(floe_ctx *ctx, floe_state s, floe_iter *it) {
    floe_bytes b = {0};
    return start(read_state(floe__list_get, s, ctx->rec, &b), b, s, false, it);
}

void floe_list_clear(floe_ctx *ctx, floe_state s) { floe__list_clear(s, ctx->rec); }

/* The map_get in flight, so that it fits read's getter shape. */
static const void *map_key;
static int32_t map_klen;

static int32_t map_get_key(int32_t s, int32_t rec, void *buf, int32_t cap) {
    return floe__map_get(s, rec, map_key, map_klen, buf, cap);
}

int floe_map_get(floe_ctx *ctx, floe_state s, const void *key, size_t klen, floe_bytes *out) {
    map_key = key;
    map_klen = (int32_t)klen;
    return read_state(map_get_key, s, ctx->rec, out);
}

int floe_map_get_i64(floe_ctx *ctx, floe_state s, const void *key, size_t klen, int64_t *out) {
    int64_t v = 0;
    return get_i64(s, floe__map_get(s, ctx->rec, key, (int32_t)klen, &v, 8), v, out);
}

void floe_map_put(floe_ctx *ctx, floe_state s, const void *key, size_t klen, const void *value, size_t vlen) {
    floe__map_put(s, ctx->rec, key, (int32_t)klen, value, (int32_t)vlen);
}

void floe_map_put_i64(floe_ctx *ctx, floe_state s, const void *key, size_t klen, int64_t v) {
    floe__map_put(s, ctx->rec, key, (int32_t)klen, &v, 8);
}

void floe_map_delete(floe_ctx *ctx, floe_state s, const void *key, size_t klen) {
    floe__map_delete(s, ctx->rec, key, (int32_t)klen);
}

bool floe_map_entries(floe_ctx *ctx, floe_state s, floe_iter *it) {
    floe_bytes b = {0};
    return start(read_state(floe__map_entries, s, ctx->rec, &b), b, s, true, it);
}

void floe_map_clear(floe_ctx *ctx, floe_state s) { floe__map_clear(s, ctx->rec); }

/* Operator list state ignores rec; the ABI asks SDKs to pass -1. */
void floe_operator_list_append(floe_state s, const void *value, size_t len) {
    floe__list_append(s, -1, value, (int32_t)len);
}

bool floe_operator_list_get(floe_state s, floe_iter *it) {
    floe_bytes b = {0};
    return start(read_state(floe__list_get, s, -1, &b), b, s, false, it);
}

void floe_operator_list_clear(floe_state s) { floe__list_clear(s, -1); }

/* Broadcast state (kind 6) uses the map functions with rec -1. */
#define KIND_BROADCAST_MAP 6

floe_state floe_broadcast_state(const char *name, int flags) { return declare(KIND_BROADCAST_MAP, name, flags); }

int floe_broadcast_get(floe_state s, const void *key, size_t klen, floe_bytes *out) {
    map_key = key;
    map_klen = (int32_t)klen;
    return read_state(map_get_key, s, -1, out);
}

void floe_broadcast_put(floe_state s, const void *key, size_t klen, const void *value, size_t vlen) {
    floe__map_put(s, -1, key, (int32_t)klen, value, (int32_t)vlen);
}

void floe_broadcast_delete(floe_state s, const void *key, size_t klen) {
    floe__map_delete(s, -1, key, (int32_t)klen);
}

bool floe_broadcast_entries(floe_state s, floe_iter *it) {
    floe_bytes b = {0};
    return start(read_state(floe__map_entries, s, -1, &b), b, s, true, it);
}

void floe_broadcast_clear(floe_state s) { floe__map_clear(s, -1); }

/* -------------------------------------------------------------- timers */

void floe_timer_register(floe_ctx *ctx, floe_time_domain domain, int64_t ts) {
    floe__timer_register(ctx->rec, (int32_t)domain, ts);
}

void floe_timer_delete(floe_ctx *ctx, floe_time_domain domain, int64_t ts) {
    floe__timer_delete(ctx->rec, (int32_t)domain, ts);
}

int64_t floe_current_watermark(void) { return floe__current_watermark(); }

int64_t floe_processing_time(void) { return floe__processing_time(); }

/* -------------------------------------------------------- SQL functions */

/* sql_value decodes the value at the start of b[0:n] into *v and returns its
 * length, or 0 when it is malformed. */
static size_t sql_value(const uint8_t *b, size_t n, floe_sql_value *v) {
    *v = floe_sql_null();
    switch (b[0]) {
    case FLOE_SQL_NULL:
        return 1;
    case FLOE_SQL_BOOLEAN:
        if (n < 2) return 0;
        *v = floe_sql_boolean(b[1] & 1);
        return 2;
    case FLOE_SQL_BIGINT:
    case FLOE_SQL_DOUBLE: {
        if (n < 9) return 0;
        uint64_t u = 0;
        for (int i = 8; i >= 1; i--) u = u << 8 | b[i];
        if (b[0] == FLOE_SQL_BIGINT) {
            *v = floe_sql_bigint((int64_t)u);
        } else {
            double d;
            memcpy(&d, &u, sizeof d);
            *v = floe_sql_double(d);
        }
        return 9;
    }
    case FLOE_SQL_VARCHAR: {
        uint64_t len = 0;
        size_t i = 1;
        for (int shift = 0;; shift += 7, i++) {
            if (i >= n || shift > 63) return 0;
            len |= (uint64_t)(b[i] & 0x7f) << shift;
            if (b[i] < 0x80) break;
        }
        i++;
        if (len > n - i) return 0;
        *v = floe_sql_varchar(floe_bytes_of(b + i, (size_t)len));
        return i + (size_t)len;
    }
    }
    return 0;
}

int floe_sql_decode_row(floe_bytes row, floe_sql_value *dst, int max) {
    int count = 0;
    for (size_t off = 0; off < row.len; count++) {
        floe_sql_value v;
        size_t n = sql_value(row.data + off, row.len - off, &v);
        if (n == 0) return -(count + 1);
        if (count < max) dst[count] = v;
        off += n;
    }
    return count;
}

void floe_sql_append_value(floe_buf *b, floe_sql_value v) {
    floe_buf_append_byte(b, (uint8_t)v.type);
    switch (v.type) {
    case FLOE_SQL_NULL:
        return;
    case FLOE_SQL_BOOLEAN:
        floe_buf_append_byte(b, v.boolean ? 1 : 0);
        return;
    case FLOE_SQL_BIGINT:
    case FLOE_SQL_DOUBLE: {
        uint64_t u = (uint64_t)v.bigint;
        if (v.type == FLOE_SQL_DOUBLE) memcpy(&u, &v.dbl, sizeof u);
        for (int i = 0; i < 8; i++) floe_buf_append_byte(b, (uint8_t)(u >> (8 * i)));
        return;
    }
    case FLOE_SQL_VARCHAR: {
        uint64_t len = v.varchar.len;
        for (; len >= 0x80; len >>= 7) floe_buf_append_byte(b, (uint8_t)(len | 0x80));
        floe_buf_append_byte(b, (uint8_t)len);
        floe_buf_append_bytes(b, v.varchar);
        return;
    }
    }
}

/* sql_args holds the decoded arguments of the current SQL function call. */
static struct {
    floe_sql_value *v;
    int cap;
} sql_args;

/* decode_args decodes an argument row into sql_args; it returns the
 * number of arguments, or -k for a malformed k-th value. */
static int decode_args(floe_bytes row) {
    int n = floe_sql_decode_row(row, sql_args.v, sql_args.cap);
    if (n > sql_args.cap) {
        free(sql_args.v);
        sql_args.v = (floe_sql_value *)calloc((size_t)n, sizeof *sql_args.v);
        if (!sql_args.v) oom();
        sql_args.cap = n;
        n = floe_sql_decode_row(row, sql_args.v, sql_args.cap);
    }
    return n;
}

/* sql_map runs the operator's SQL function on one argument row. */
static int sql_map(floe_ctx *ctx, floe_bytes row, floe_buf *out) {
    int n = decode_args(row);
    if (n < 0) return floe_error(ctx, "value %d: not an encoded SQL value", -n);
    floe_sql_value result = floe_sql_null();
    if (op.fn->sql(ctx, sql_args.v, n, &result) != 0) return FLOE_FAILED;
    floe_sql_append_value(out, result);
    return 0;
}

floe_function *floe_register_sql_function(const char *name, floe_sql_fn fn) {
    floe_function *f = floe_register_map(name, sql_map);
    f->sql = fn;
    return f;
}

/* sql_table_map runs the operator's SQL table function on one argument
 * row: its output is the rows the function appends. */
static int sql_table_map(floe_ctx *ctx, floe_bytes row, floe_buf *out) {
    int n = decode_args(row);
    if (n < 0) return floe_error(ctx, "value %d: not an encoded SQL value", -n);
    return op.fn->sql_table(ctx, sql_args.v, n, out);
}

floe_function *floe_register_sql_table_function(const char *name, floe_sql_table_fn fn) {
    floe_function *f = floe_register_map(name, sql_table_map);
    f->sql_table = fn;
    return f;
}

floe_function *floe_register_sql_aggregate(const char *name, const floe_sql_aggregate *agg) {
    floe_function *f = register_function(name, K_AGGREGATE);
    f->sql_agg = agg;
    return f;
}

/* window_reader reads a floe_window payload; the first short read sets
 * bad. */
struct window_reader {
    const uint8_t *p, *end;
    bool bad;
};

static uint32_t wr_u32(struct window_reader *r) {
    if (r->end - r->p < 4) {
        r->bad = true;
        return 0;
    }
    uint32_t v = load_u32(r->p);
    r->p += 4;
    return v;
}

static floe_bytes wr_bytes(struct window_reader *r, uint32_t n) {
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        return floe_bytes_of(NULL, 0);
    }
    floe_bytes b = floe_bytes_of(r->p, n);
    r->p += n;
    return b;
}

/* window_add runs op 0 on one group: the accumulator (created when absent)
 * with the group's records folded in. */
static int window_add(struct window_reader *r, const floe_sql_aggregate *agg, floe_buf *acc) {
    uint32_t acc_len = wr_u32(r);
    acc->len = 0;
    int rc = 0;
    if (acc_len == 0xFFFFFFFFu) {
        rc = agg->create(&op.ctx, acc);
    } else {
        floe_bytes a = wr_bytes(r, acc_len);
        floe_buf_append(acc, a.data, a.len);
    }
    uint32_t count = wr_u32(r);
    for (uint32_t i = 0; i < count && rc == 0 && !r->bad && !op.failed; i++) {
        uint32_t kl = wr_u32(r), vl = wr_u32(r);
        wr_bytes(r, 8 + kl);
        floe_bytes row = wr_bytes(r, vl);
        if (r->bad) break;
        int n = decode_args(row);
        if (n < 0) return floe_error(&op.ctx, "value %d: not an encoded SQL value", -n);
        rc = agg->add(&op.ctx, acc, sql_args.v, n);
    }
    return rc;
}

/* window_merge runs op 1 on one group: its accumulators merged into one. */
static int window_merge(struct window_reader *r, const floe_sql_aggregate *agg, floe_buf *acc) {
    uint32_t count = wr_u32(r);
    acc->len = 0;
    int rc = 0;
    for (uint32_t i = 0; i < count && rc == 0 && !r->bad && !op.failed; i++) {
        floe_bytes a = wr_bytes(r, wr_u32(r));
        if (i == 0)
            floe_buf_append(acc, a.data, a.len);
        else
            rc = agg->merge(&op.ctx, acc, a);
    }
    if (count == 0) rc = agg->create(&op.ctx, acc);
    return rc;
}

/* window_result runs op 2 on one group: the result of its accumulator. */
static int window_result(struct window_reader *r, const floe_sql_aggregate *agg, floe_buf *out) {
    floe_bytes key = wr_bytes(r, wr_u32(r));
    floe_bytes w = wr_bytes(r, 16);
    floe_bytes a = wr_bytes(r, wr_u32(r));
    if (r->bad) return 0;
    int64_t end = load_i64(w.data + 8);
    reset_ctx(-1, key, end - 1);
    floe_sql_value v = floe_sql_null();
    int rc = agg->result(&op.ctx, a, &v);
    out->len = 0;
    floe_sql_append_value(out, v);
    return rc;
}

/* floe_window runs a SQL aggregate's op over the payload in the input
 * buffer's first n bytes (sdk/ABI.md, "Window functions"): add, merge or
 * result, for each group, emitting its accumulator or result on port 0. */
__attribute__((export_name("floe_window"))) int32_t floe__export_window(int32_t opcode, int32_t n) {
    if (!op.fn || op.fn->kind != K_AGGREGATE)
        return finish(sdk_error("function %s is not an aggregate function (register it with floe_register_sql_aggregate)",
                                op.fn ? op.fn->name : "?"), -1);
    if (opcode < 0 || opcode > 2)
        return finish(sdk_error("window operation %d: a SQL aggregate does add, merge and result only", opcode), -1);
    struct window_reader r = {op.in, op.in + n, false};
    uint32_t groups = wr_u32(&r);
    reset_ctx(-1, floe_bytes_of(NULL, 0), FLOE_NO_TIMESTAMP);
    for (uint32_t g = 0; g < groups && !r.bad; g++) {
        int rc = opcode == 0 ? window_add(&r, op.fn->sql_agg, &op.map_out)
                 : opcode == 1 ? window_merge(&r, op.fn->sql_agg, &op.map_out)
                               : window_result(&r, op.fn->sql_agg, &op.map_out);
        if (rc != 0 || op.failed) return finish(rc, -1);
        if (!r.bad) floe_emit_at(&op.ctx, FLOE_MAIN, op.map_out.data, op.map_out.len, op.ctx.out_ts);
    }
    if (r.bad) return finish(sdk_error("floe: truncated buffer"), -1);
    return finish(0, -1);
}

/* ------------------------------------------------------- join functions */

int floe_split_pair(floe_bytes value, floe_bytes *left, floe_bytes *right, bool *has_right) {
    if (value.len < 5) return FLOE_PAIR_SHORT;
    const uint8_t *p = value.data;
    uint64_t n = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
    if (n + 5 > value.len) return FLOE_PAIR_LEFT_PAST_END;
    const uint8_t *rest = p + 4 + n;
    size_t rest_len = value.len - 4 - (size_t)n;
    if (rest[0] > 1) return FLOE_PAIR_BAD_FLAG;
    if (rest[0] == 0 && rest_len > 1) return FLOE_PAIR_RIGHT_UNFLAGGED;
    *left = floe_bytes_of(p + 4, (size_t)n);
    *right = floe_bytes_of(rest + 1, rest_len - 1);
    *has_right = rest[0] == 1;
    return FLOE_PAIR_OK;
}

const char *floe_pair_error(int status) {
    switch (status) {
    case FLOE_PAIR_OK:
        return "join pair: no error";
    case FLOE_PAIR_SHORT:
        return "malformed join pair: shorter than its 5-byte header";
    case FLOE_PAIR_LEFT_PAST_END:
        return "malformed join pair: left_len runs past its end";
    case FLOE_PAIR_BAD_FLAG:
        return "malformed join pair: has_right is neither 0 nor 1";
    case FLOE_PAIR_RIGHT_UNFLAGGED:
        return "malformed join pair: right bytes follow a has_right of 0";
    }
    return "join pair: unknown status";
}
