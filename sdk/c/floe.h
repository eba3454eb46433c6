/*
 * floe.h: the C SDK for writing Floe operators as WebAssembly modules.
 *
 * A module defines floe_init(), which registers its functions by name; a job
 * spec picks one per operator (the `function:` field), and the SDK runs it:
 *
 *     #include "floe.h"
 *
 *     static floe_state counts;
 *
 *     static int count_open(floe_ctx *ctx) {
 *         counts = floe_value_state("counts", FLOE_TYPE_INT64 | FLOE_QUERYABLE);
 *         return 0;
 *     }
 *
 *     static int count(floe_ctx *ctx, floe_bytes word) {
 *         int64_t n = 0;
 *         floe_value_get_i64(ctx, counts, &n);
 *         floe_value_put_i64(ctx, counts, ++n);
 *         floe_buf *line = floe_scratch(ctx);
 *         floe_buf_append(line, word.data, word.len);
 *         floe_buf_append_byte(line, ',');
 *         floe_buf_append_i64(line, n);
 *         floe_emit(ctx, line->data, line->len);
 *         return 0;
 *     }
 *
 *     void floe_init(void) {
 *         floe_function *f = floe_register_process("count", count);
 *         floe_function_on_open(f, count_open);
 *     }
 *
 * Build it with Debian's clang and wasi-libc
 * (apt-get install clang lld wasi-libc libclang-rt-dev-wasm32):
 *
 *     clang --target=wasm32-wasi -mexec-model=reactor -O2 -mbulk-memory \
 *         -I floe-sdk -o op.wasm op.c floe-sdk/floe.c
 *
 * The SDK speaks Floe's ABI version 1 (sdk/ABI.md): records arrive in batches,
 * output is buffered and handed to the host once per batch, keyed state lives
 * in the host, scoped to the key of the record being processed. None of that
 * shows in the API: a function sees one record's bytes and a context.
 *
 * Conventions:
 *  - Every function returns 0 for success. To fail, return floe_error(ctx,
 *    "format", ...): it records the message and returns FLOE_FAILED. The task
 *    then fails with the message and the record that caused it. (A filter
 *    returns 1 to keep a record, 0 to drop it, FLOE_FAILED to fail.)
 *  - Bytes handed to a function (floe_bytes) are valid only during the call:
 *    copy what you keep. Bytes handed to the SDK are copied before it returns.
 *  - Bytes returned by a state read are valid until the next read of the
 *    same state handle (each handle has its own buffer) or the end of the
 *    call: bytes of two states can be held at once.
 *  - One instance runs one operator subtask on one thread: no locking needed.
 *
 * The header is C99 and C++ compatible; floe.c is compiled as C.
 */
#ifndef FLOE_H
#define FLOE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- bytes */

/* FLOE_NO_TIMESTAMP is the timestamp of a record without event time. */
#define FLOE_NO_TIMESTAMP INT64_MIN

/* FLOE_FAILED is what floe_error returns, for `return floe_error(...)`. */
#define FLOE_FAILED (-1)

/* floe_bytes is a read-only view of bytes the SDK or the host owns. */
typedef struct floe_bytes {
    const uint8_t *data;
    size_t len;
} floe_bytes;

static inline floe_bytes floe_bytes_of(const void *data, size_t len) {
    floe_bytes b;
    b.data = (const uint8_t *)data;
    b.len = len;
    return b;
}

/* floe_str views a NUL-terminated string, without its NUL. */
static inline floe_bytes floe_str(const char *s) { return floe_bytes_of(s, strlen(s)); }

/* floe_bytes_eq reports whether b holds exactly the string s. */
static inline bool floe_bytes_eq(floe_bytes b, const char *s) {
    size_t n = strlen(s);
    return b.len == n && (n == 0 || memcmp(b.data, s, n) == 0);
}

/* floe_index_byte returns the index of the first byte c in data[0:len], or
 * -1. It is memchr for hot paths: it reads 8 bytes per step, and under a
 * host that can interrupt guests every loop iteration costs a check. */
ptrdiff_t floe_index_byte(const void *data, size_t len, uint8_t c);

/* floe_parse_i64 reads a decimal integer with an optional leading '-'. It
 * returns false when b is not one or overflows. */
bool floe_parse_i64(floe_bytes b, int64_t *out);

/* floe_buf is a growable byte buffer. Zero-initialise it ({0}); it grows as
 * needed and keeps its memory when reset, so a buffer reused across records
 * allocates only while it grows. Running out of memory aborts the instance
 * with "out of memory". */
typedef struct floe_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} floe_buf;

/* floe_buf_grow makes room for n more bytes. */
void floe_buf_grow(floe_buf *b, size_t n);
/* floe_buf_free releases the buffer's memory and empties it. */
void floe_buf_free(floe_buf *b);
/* floe_buf_append_i64 appends v in decimal. */
void floe_buf_append_i64(floe_buf *b, int64_t v);

static inline void floe_buf_reset(floe_buf *b) { b->len = 0; }

/* floe_buf_reserve returns a pointer to n writable bytes at the end of the
 * buffer; write them, then add what you wrote to b->len. */
static inline uint8_t *floe_buf_reserve(floe_buf *b, size_t n) {
    if (b->cap - b->len < n) floe_buf_grow(b, n);
    return b->data + b->len;
}

static inline void floe_buf_append(floe_buf *b, const void *p, size_t n) {
    if (n == 0) return;
    memcpy(floe_buf_reserve(b, n), p, n);
    b->len += n;
}

static inline void floe_buf_append_byte(floe_buf *b, uint8_t c) {
    *floe_buf_reserve(b, 1) = c;
    b->len++;
}

static inline void floe_buf_append_str(floe_buf *b, const char *s) { floe_buf_append(b, s, strlen(s)); }

static inline void floe_buf_append_bytes(floe_buf *b, floe_bytes v) { floe_buf_append(b, v.data, v.len); }

static inline floe_bytes floe_buf_bytes(const floe_buf *b) { return floe_bytes_of(b->data, b->len); }

/* -------------------------------------------------------------- context */

/* floe_ctx is the scope of one call: the record being processed (or the
 * timer firing), its key and timestamp. Read it through the functions below;
 * its fields are the SDK's. */
typedef struct floe_ctx {
    int32_t rec;        /* the record's index in the batch (ABI `rec`) */
    floe_bytes key;     /* the record's key; empty before a keyBy */
    int64_t timestamp;  /* the record's event time or FLOE_NO_TIMESTAMP */
    int64_t out_ts;     /* the timestamp emitted records get by default */
    floe_buf *scratch;  /* floe_scratch's buffer */
} floe_ctx;

/* floe_key is the current record's key (the timer's key in a timer
 * handler); empty for records without a key. */
static inline floe_bytes floe_key(const floe_ctx *ctx) { return ctx->key; }

/* floe_timestamp is the current record's event time in ms since the epoch,
 * or FLOE_NO_TIMESTAMP. In a timer handler: the timer's timestamp for an
 * event-time timer, FLOE_NO_TIMESTAMP for a processing-time timer. */
static inline int64_t floe_timestamp(const floe_ctx *ctx) { return ctx->timestamp; }

/* floe_set_output_timestamp sets the timestamp of the records emitted for
 * the rest of this call (the current record or timer) by floe_emit,
 * floe_emit_to and a map function's result. */
static inline void floe_set_output_timestamp(floe_ctx *ctx, int64_t ts) { ctx->out_ts = ts; }

/* floe_scratch returns an empty buffer owned by the SDK, for building an
 * output record. It is emptied at every call of floe_scratch. */
static inline floe_buf *floe_scratch(floe_ctx *ctx) {
    floe_buf_reset(ctx->scratch);
    return ctx->scratch;
}

/* ------------------------------------------------------------ functions */

/* A map (or key selector) appends its one output record (or key) to out,
 * which is empty at the call. */
typedef int (*floe_map_fn)(floe_ctx *ctx, floe_bytes value, floe_buf *out);
/* A filter returns 1 to keep the record, 0 to drop it, FLOE_FAILED to fail. */
typedef int (*floe_filter_fn)(floe_ctx *ctx, floe_bytes value);
/* A flatMap or process function emits zero or more records. */
typedef int (*floe_flat_map_fn)(floe_ctx *ctx, floe_bytes value);
typedef int (*floe_process_fn)(floe_ctx *ctx, floe_bytes value);
/* Open and close hooks. */
typedef int (*floe_hook_fn)(floe_ctx *ctx);

/* The time domains of timers. */
typedef enum floe_time_domain {
    FLOE_EVENT_TIME = 0,
    FLOE_PROCESSING_TIME = 1
} floe_time_domain;

/* A timer handler runs when a timer of its function fires, with the timer's
 * key as the current key. */
typedef int (*floe_timer_fn)(floe_ctx *ctx, floe_time_domain domain, int64_t timestamp);

/* floe_function is a registered function. */
typedef struct floe_function floe_function;

/* floe_init is written by the module: it registers the module's functions
 * and hooks. The SDK calls it once, when the operator opens, before it picks
 * the function named by the `floe.function` parameter. */
void floe_init(void);

/* Registration, for floe_init. Names must be unique within the module. */
floe_function *floe_register_map(const char *name, floe_map_fn fn);
floe_function *floe_register_filter(const char *name, floe_filter_fn fn);
floe_function *floe_register_flat_map(const char *name, floe_flat_map_fn fn);
/* A process function runs after a keyBy: keyed state and timers are scoped
 * to the key of the record in ctx. */
floe_function *floe_register_process(const char *name, floe_process_fn fn);
/* A key selector returns a record's key, for a keyBy with `key: function`. */
floe_function *floe_register_key_selector(const char *name, floe_map_fn fn);

/* floe_function_on_open runs fn when an operator opens with function f,
 * after the module's floe_on_open hooks: the place to declare state and side
 * outputs and read parameters. */
void floe_function_on_open(floe_function *f, floe_hook_fn fn);
/* floe_function_on_close runs fn when an operator with function f closes,
 * before the module's floe_on_close hooks. */
void floe_function_on_close(floe_function *f, floe_hook_fn fn);
/* floe_function_on_timer handles the timers that function f registers. A
 * two-input operator (a job spec's coProcess, run through floe_process and
 * floe_process2) has one set of timers: they fire into its first function's
 * handler, or its second's when the first has none. */
void floe_function_on_timer(floe_function *f, floe_timer_fn fn);

/* floe_on_open and floe_on_close run fn whatever function an operator of the
 * module runs, in registration order. */
void floe_on_open(floe_hook_fn fn);
void floe_on_close(floe_hook_fn fn);

/* -------------------------------------------------------- SQL functions */

/* A scalar function that a SQL script declares with CREATE FUNCTION
 * (sdk/ABI.md, "SQL functions") is a map function whose input record is the
 * call's arguments, a row of SQL values, and whose output is the result, one
 * value. Each value is a tag byte (its floe_sql_type) and a payload. */
typedef enum floe_sql_type {
    FLOE_SQL_NULL = 0,
    FLOE_SQL_BOOLEAN = 1,
    FLOE_SQL_BIGINT = 2,
    FLOE_SQL_DOUBLE = 3,
    FLOE_SQL_VARCHAR = 4
} floe_sql_type;

/* floe_sql_value is one SQL value: type says which other field holds it
 * (none for NULL). A decoded VARCHAR's bytes are a view of the row. */
typedef struct floe_sql_value {
    floe_sql_type type;
    bool boolean;
    int64_t bigint;
    double dbl;
    floe_bytes varchar;
} floe_sql_value;

static inline floe_sql_value floe_sql_null(void) {
    floe_sql_value v;
    memset(&v, 0, sizeof v);
    return v;
}
static inline floe_sql_value floe_sql_boolean(bool b) {
    floe_sql_value v = floe_sql_null();
    v.type = FLOE_SQL_BOOLEAN;
    v.boolean = b;
    return v;
}
static inline floe_sql_value floe_sql_bigint(int64_t i) {
    floe_sql_value v = floe_sql_null();
    v.type = FLOE_SQL_BIGINT;
    v.bigint = i;
    return v;
}
static inline floe_sql_value floe_sql_double(double d) {
    floe_sql_value v = floe_sql_null();
    v.type = FLOE_SQL_DOUBLE;
    v.dbl = d;
    return v;
}
static inline floe_sql_value floe_sql_varchar(floe_bytes s) {
    floe_sql_value v = floe_sql_null();
    v.type = FLOE_SQL_VARCHAR;
    v.varchar = s;
    return v;
}

/* floe_sql_decode_row decodes the whole of row, value after value, into
 * dst[0:max]. It returns the number of values in the row, which may be more
 * than max (only the first max are stored), or -k when the k-th value
 * (from 1) is malformed: truncated, of an unknown tag, or a VARCHAR whose
 * length runs past the row. */
int floe_sql_decode_row(floe_bytes row, floe_sql_value *dst, int max);

/* floe_sql_append_value appends the encoding of v to b. */
void floe_sql_append_value(floe_buf *b, floe_sql_value v);

/* A SQL function sets *result from args[0:nargs] (NULL arguments are
 * FLOE_SQL_NULL values; *result starts NULL) and returns 0, or fails with
 * floe_error. A VARCHAR result's bytes must stay valid until it returns. */
typedef int (*floe_sql_fn)(floe_ctx *ctx, const floe_sql_value *args, int nargs, floe_sql_value *result);

/* floe_register_sql_function registers fn as the scalar SQL function name,
 * a map function: each record's arguments are decoded and fn's result
 * encoded. A malformed row fails the record with "value K: not an encoded
 * SQL value". */
floe_function *floe_register_sql_function(const char *name, floe_sql_fn fn);

/* A SQL table function (CREATE FUNCTION ... RETURNS TABLE (...) or RETURNS
 * SETOF type; sdk/ABI.md, "SQL table functions") appends to rows, for the
 * arguments args[0:nargs], zero or more result rows: each row's values in
 * column order, with floe_sql_append_value. It returns 0, or fails with
 * floe_error. */
typedef int (*floe_sql_table_fn)(floe_ctx *ctx, const floe_sql_value *args, int nargs, floe_buf *rows);

/* floe_register_sql_table_function registers fn as the SQL table function
 * name, a map function whose output record holds the rows back to back. */
floe_function *floe_register_sql_table_function(const char *name, floe_sql_table_fn fn);

/* A SQL aggregate function (CREATE AGGREGATE; sdk/ABI.md, "SQL aggregate
 * functions") keeps an accumulator of its own bytes per group, which the
 * host stores between calls. Each callback returns 0, or fails with
 * floe_error:
 *   create  appends a new group's accumulator to acc (empty);
 *   add     folds one row's arguments into acc, which it may rewrite
 *           (acc->len = 0, then append);
 *   merge   folds the accumulator other into acc;
 *   result  sets *result (NULL to start with) from acc: a value of the
 *           declared RETURNS type, or NULL. */
typedef struct floe_sql_aggregate {
    int (*create)(floe_ctx *ctx, floe_buf *acc);
    int (*add)(floe_ctx *ctx, floe_buf *acc, const floe_sql_value *args, int nargs);
    int (*merge)(floe_ctx *ctx, floe_buf *acc, floe_bytes other);
    int (*result)(floe_ctx *ctx, floe_bytes acc, floe_sql_value *result);
} floe_sql_aggregate;

/* floe_register_sql_aggregate registers agg (which must outlive the
 * module) as the SQL aggregate function name, of kind aggregate: the host
 * calls it through floe_window. */
floe_function *floe_register_sql_aggregate(const char *name, const floe_sql_aggregate *agg);

/* -------------------------------------------------------- join functions */

/* A built-in join (job spec type intervalJoin or windowJoin) may call a
 * flatMap function once per joined pair, whose value frames the pair
 * (sdk/ABI.md, "Join functions"): u32 left_len (little-endian), the left
 * value, u8 has_right, then the right value, which is the rest of the
 * frame. has_right is 0 for a left outer join's left row without a match. */

/* What floe_split_pair returns: 0, or why the frame is malformed. */
typedef enum floe_pair_status {
    FLOE_PAIR_OK = 0,
    FLOE_PAIR_SHORT = -1,           /* shorter than the 5-byte header */
    FLOE_PAIR_LEFT_PAST_END = -2,   /* left_len runs past the frame's end */
    FLOE_PAIR_BAD_FLAG = -3,        /* has_right is neither 0 nor 1 */
    FLOE_PAIR_RIGHT_UNFLAGGED = -4, /* bytes after a has_right of 0 */
} floe_pair_status;

/* floe_split_pair decodes the pair frame value into *left and *right,
 * views into value, and sets *has_right; *right is empty when *has_right is
 * false. It returns FLOE_PAIR_OK, or a negative floe_pair_status for a
 * malformed frame, leaving the outputs unset. */
int floe_split_pair(floe_bytes value, floe_bytes *left, floe_bytes *right, bool *has_right);

/* floe_pair_error describes a floe_pair_status, for floe_error:
 * "malformed join pair: ...". */
const char *floe_pair_error(int status);

/* ----------------------------------------------------------- parameters */

/* floe_param returns the job parameter (spec `params:` and `--set`) or the
 * host's floe.* entry (floe.function, floe.operator, floe.job,
 * floe.subtask, floe.parallelism, floe.max_parallelism), or NULL when
 * absent. Valid until the operator closes. */
const char *floe_param(const char *name);

/* floe_param_or returns the parameter or def when it is absent. */
const char *floe_param_or(const char *name, const char *def);

/* floe_param_i64 sets *out to the integer parameter, or to def when it is
 * absent. It returns 0, or fails (FLOE_FAILED, with the error set for ctx)
 * when the parameter is not an integer. */
int floe_param_i64(floe_ctx *ctx, const char *name, int64_t def, int64_t *out);

/* floe_function_name is the name of the function the operator runs. */
const char *floe_function_name(void);

/* ------------------------------------------------------- errors and logs */

/* floe_error records the failure message of the current call, printf-style,
 * and returns FLOE_FAILED. The first message of a call wins. */
int floe_error(floe_ctx *ctx, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Log levels. */
typedef enum floe_log_level {
    FLOE_LOG_DEBUG = 0,
    FLOE_LOG_INFO = 1,
    FLOE_LOG_WARN = 2,
    FLOE_LOG_ERROR = 3
} floe_log_level;

/* floe_log writes a line to the task's log, printf-style. */
void floe_log(floe_log_level level, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* --------------------------------------------------------------- output */

/* floe_port is an output: FLOE_MAIN or a side output from floe_output. */
typedef int32_t floe_port;
#define FLOE_MAIN 0

/* floe_output declares the side output name and returns its port. Call it
 * in an open hook. */
floe_port floe_output(const char *name);

/* floe_emit_at sends value to port with timestamp ts (FLOE_NO_TIMESTAMP for
 * none). The bytes are copied. */
void floe_emit_at(floe_ctx *ctx, floe_port port, const void *value, size_t len, int64_t ts);

/* floe_emit sends value to the main output. It carries the input record's
 * timestamp (a timer's, see floe_timestamp) unless
 * floe_set_output_timestamp said otherwise. */
static inline void floe_emit(floe_ctx *ctx, const void *value, size_t len) {
    floe_emit_at(ctx, FLOE_MAIN, value, len, ctx->out_ts);
}

/* floe_emit_to sends value to a side output, timestamped as floe_emit. */
static inline void floe_emit_to(floe_ctx *ctx, floe_port port, const void *value, size_t len) {
    floe_emit_at(ctx, port, value, len, ctx->out_ts);
}

/* ---------------------------------------------------------------- state */

/* floe_state is a declared state's id. */
typedef int32_t floe_state;

/* Declaration flags: FLOE_QUERYABLE makes a keyed state readable from
 * outside the job under its name; the type tells queries how to render its
 * values. Combine with |. */
#define FLOE_QUERYABLE 1
#define FLOE_TYPE_BYTES (0 << 8)
#define FLOE_TYPE_INT64 (1 << 8)  /* 8 bytes little-endian, as the _i64 calls store */
#define FLOE_TYPE_STRING (2 << 8) /* UTF-8 */
#define FLOE_TYPE_JSON (3 << 8)

/* Keyed state, declared in an open hook, used by process functions and
 * timer handlers: each key has its own value, list or map. */
floe_state floe_value_state(const char *name, int flags);
floe_state floe_list_state(const char *name, int flags);
floe_state floe_map_state(const char *name, int flags);

/* What a state read returns: FLOE_FOUND (and the value in *out), FLOE_ABSENT
 * (*out untouched), or, for the _i64 reads of a value that is not 8 bytes,
 * FLOE_FAILED: the call has failed with `state "NAME": int64 state value of
 * N bytes, want 8` and *out is untouched. Test with == FLOE_FOUND (or
 * > 0), and pass a failure on: `if (r < 0) return r;`. */
#define FLOE_ABSENT 0
#define FLOE_FOUND 1

/* floe_value_get sets *out to the key's value: FLOE_FOUND or FLOE_ABSENT. */
int floe_value_get(floe_ctx *ctx, floe_state s, floe_bytes *out);
/* floe_value_get_i64 reads an 8-byte little-endian integer value:
 * FLOE_FOUND, FLOE_ABSENT, or FLOE_FAILED when it is not 8 bytes. */
int floe_value_get_i64(floe_ctx *ctx, floe_state s, int64_t *out);
void floe_value_put(floe_ctx *ctx, floe_state s, const void *value, size_t len);
void floe_value_put_i64(floe_ctx *ctx, floe_state s, int64_t v);
void floe_value_delete(floe_ctx *ctx, floe_state s);

/* floe_iter walks the elements of a list or the entries of a map that a
 * state read returned. */
typedef struct floe_iter {
    const uint8_t *next, *end;
    floe_state state; /* the state read, for messages */
    bool map;
} floe_iter;

/* floe_list_next sets *elem to the next list element and returns true, or
 * returns false at the end. Bytes from the host that end inside an element
 * fail the call (`state "NAME": truncated list`) and end the walk. */
bool floe_list_next(floe_iter *it, floe_bytes *elem);
/* floe_map_next sets the next map entry and returns true, or returns false
 * at the end; truncated entries fail the call as floe_list_next does. */
bool floe_map_next(floe_iter *it, floe_bytes *key, floe_bytes *value);

void floe_list_append(floe_ctx *ctx, floe_state s, const void *value, size_t len);
/* floe_list_get starts *it on the key's list; false when empty. */
bool floe_list_get(floe_ctx *ctx, floe_state s, floe_iter *it);
void floe_list_clear(floe_ctx *ctx, floe_state s);

/* floe_map_get and floe_map_get_i64 return as floe_value_get and
 * floe_value_get_i64 do. */
int floe_map_get(floe_ctx *ctx, floe_state s, const void *key, size_t klen, floe_bytes *out);
int floe_map_get_i64(floe_ctx *ctx, floe_state s, const void *key, size_t klen, int64_t *out);
void floe_map_put(floe_ctx *ctx, floe_state s, const void *key, size_t klen, const void *value, size_t vlen);
void floe_map_put_i64(floe_ctx *ctx, floe_state s, const void *key, size_t klen, int64_t v);
void floe_map_delete(floe_ctx *ctx, floe_state s, const void *key, size_t klen);
/* floe_map_entries starts *it on the key's map, in ascending map-key order;
 * false when empty. */
bool floe_map_entries(floe_ctx *ctx, floe_state s, floe_iter *it);
void floe_map_clear(floe_ctx *ctx, floe_state s);

/* Operator list state: one list of byte strings per subtask, not per key,
 * usable by any operator from its open hooks on. At a rescale, FLOE_EVEN_SPLIT
 * spreads the elements of all subtasks evenly (each lands in one subtask);
 * FLOE_UNION gives every subtask all of them. */
typedef enum floe_redistribution {
    FLOE_EVEN_SPLIT = 4,
    FLOE_UNION = 5
} floe_redistribution;

floe_state floe_operator_list_state(const char *name, floe_redistribution mode, int flags);
void floe_operator_list_append(floe_state s, const void *value, size_t len);
bool floe_operator_list_get(floe_state s, floe_iter *it);
void floe_operator_list_clear(floe_state s);

/* Broadcast state (Flink's broadcast state pattern): one map of byte
 * strings per subtask, not per key, for an operator with a broadcast input
 * (a job spec's coProcess with broadcast:). Every subtask gets every record
 * of the broadcast input; that input's function keeps what they say here
 * (floe_broadcast_put, _delete, _clear), and the keyed input's function and
 * timer handlers read it (floe_broadcast_get, _entries). A write anywhere
 * but in the broadcast input's function traps: every subtask's copy must
 * see the same writes. Checkpointed; every subtask gets the whole map back
 * at a restore, at any parallelism. Reads return as floe_map_get does; the
 * bytes stay valid until the next read of the same state. */
floe_state floe_broadcast_state(const char *name, int flags);
int floe_broadcast_get(floe_state s, const void *key, size_t klen, floe_bytes *out);
void floe_broadcast_put(floe_state s, const void *key, size_t klen, const void *value, size_t vlen);
void floe_broadcast_delete(floe_state s, const void *key, size_t klen);
/* floe_broadcast_entries starts *it on the map, in ascending key order;
 * false when empty. */
bool floe_broadcast_entries(floe_state s, floe_iter *it);
void floe_broadcast_clear(floe_state s);

/* --------------------------------------------------------------- timers */

/* Timers belong to process functions (after a keyBy) and fire for the
 * current key: an event-time timer once the watermark reaches ts, a
 * processing-time timer once processing time does. A timer is (key, domain,
 * ts): registering it twice keeps one. Handle them with
 * floe_function_on_timer. */
void floe_timer_register(floe_ctx *ctx, floe_time_domain domain, int64_t ts);
void floe_timer_delete(floe_ctx *ctx, floe_time_domain domain, int64_t ts);

/* floe_current_watermark is the operator's event-time watermark,
 * FLOE_NO_TIMESTAMP before the first. */
int64_t floe_current_watermark(void);
/* floe_processing_time is the host's clock in ms since the epoch. */
int64_t floe_processing_time(void);

#ifdef __cplusplus
}
#endif

#endif /* FLOE_H */
