/*
 * The conformance suite's operators written with the C SDK (sdk/c), one
 * module holding every function of udfs/conformance/README.md. Their
 * transcripts must be byte-identical to the Go SDK's (../go).
 */
#include "floe.h"

/* ---------------------------------------------------------------- upper */

static int upper(floe_ctx *ctx, floe_bytes v, floe_buf *out) {
    if (floe_bytes_eq(v, "poison")) return floe_error(ctx, "poison record");
    uint8_t *p = floe_buf_reserve(out, v.len);
    for (size_t i = 0; i < v.len; i++) {
        uint8_t c = v.data[i];
        p[i] = c >= 'a' && c <= 'z' ? (uint8_t)(c - 'a' + 'A') : c;
    }
    out->len += v.len;
    return 0;
}

/* ---------------------------------------------------------------- evens */

static int evens(floe_ctx *ctx, floe_bytes v) {
    (void)ctx;
    return v.len % 2 == 0;
}

/* ---------------------------------------------------------------- split */

static floe_port comments, numbers;

static int split_open(floe_ctx *ctx) {
    (void)ctx;
    comments = floe_output("comments");
    numbers = floe_output("numbers");
    return 0;
}

static bool digits(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9') return false;
    return true;
}

static int split(floe_ctx *ctx, floe_bytes v) {
    const uint8_t *p = v.data, *end = v.data + v.len;
    for (;;) {
        ptrdiff_t i = floe_index_byte(p, (size_t)(end - p), ',');
        const uint8_t *comma = i < 0 ? NULL : p + i;
        const uint8_t *stop = comma ? comma : end;
        size_t n = (size_t)(stop - p);
        if (n == 0) {
        } else if (p[0] == '#') {
            floe_emit_to(ctx, comments, p + 1, n - 1);
        } else if (digits(p, n)) {
            floe_emit_to(ctx, numbers, p, n);
        } else {
            floe_emit(ctx, p, n);
        }
        if (!comma) break;
        p = comma + 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ tag */

static int tag(floe_ctx *ctx, floe_bytes v, floe_buf *out) {
    (void)ctx;
    floe_buf_append_str(out, floe_param_or("greeting", "hello"));
    floe_buf_append_byte(out, '/');
    floe_buf_append_str(out, floe_param_or("floe.subtask", ""));
    floe_buf_append_byte(out, '/');
    floe_buf_append_str(out, floe_param_or("floe.parallelism", ""));
    floe_buf_append_byte(out, '/');
    floe_buf_append_bytes(out, v);
    return 0;
}

/* ---------------------------------------------------- count, keyedcount */

static floe_state counts, kcount;

static int count_open(floe_ctx *ctx) {
    (void)ctx;
    counts = floe_value_state("counts", FLOE_TYPE_INT64 | FLOE_QUERYABLE);
    return 0;
}

static int keyedcount_open(floe_ctx *ctx) {
    (void)ctx;
    kcount = floe_value_state("count", FLOE_TYPE_INT64);
    return 0;
}

/* add_one adds one to the key's count in s and emits "<key>,<n>". */
static int add_one(floe_ctx *ctx, floe_state s) {
    int64_t n = 0;
    if (floe_value_get_i64(ctx, s, &n) < 0) return FLOE_FAILED;
    floe_value_put_i64(ctx, s, ++n);
    floe_buf *line = floe_scratch(ctx);
    floe_buf_append_bytes(line, floe_key(ctx));
    floe_buf_append_byte(line, ',');
    floe_buf_append_i64(line, n);
    floe_emit(ctx, line->data, line->len);
    return 0;
}

static int count(floe_ctx *ctx, floe_bytes v) {
    (void)v;
    return add_one(ctx, counts);
}

static int keyedcount(floe_ctx *ctx, floe_bytes v) {
    (void)v;
    return add_one(ctx, kcount);
}

/* ------------------------------------------------------------- distinct */

static floe_state seen;

static int distinct_open(floe_ctx *ctx) {
    (void)ctx;
    seen = floe_map_state("seen", FLOE_TYPE_INT64);
    return 0;
}

static int distinct(floe_ctx *ctx, floe_bytes v) {
    floe_buf *line = floe_scratch(ctx);
    floe_buf_append_bytes(line, floe_key(ctx));
    if (floe_bytes_eq(v, "?")) {
        floe_buf_append_byte(line, ':');
        floe_iter it;
        floe_bytes k, val;
        floe_map_entries(ctx, seen, &it);
        for (bool first = true; floe_map_next(&it, &k, &val); first = false) {
            int64_t n = 0;
            if (val.len == 8) memcpy(&n, val.data, 8);
            if (!first) floe_buf_append_byte(line, ';');
            floe_buf_append_bytes(line, k);
            floe_buf_append_byte(line, '=');
            floe_buf_append_i64(line, n);
        }
    } else if (floe_bytes_eq(v, "!")) {
        floe_map_clear(ctx, seen);
        floe_buf_append_byte(line, '!');
    } else {
        int64_t n = 0;
        int had = floe_map_get_i64(ctx, seen, v.data, v.len, &n);
        if (had < 0) return had;
        floe_map_put_i64(ctx, seen, v.data, v.len, n + 1);
        if (had == FLOE_FOUND) return 0;
        floe_buf_append_byte(line, '+');
        floe_buf_append_bytes(line, v);
    }
    floe_emit(ctx, line->data, line->len);
    return 0;
}

/* ----------------------------------------------------------------- hold */

static floe_state held, prior;

static int hold_open(floe_ctx *ctx) {
    (void)ctx;
    held = floe_value_state("held", FLOE_TYPE_BYTES);
    prior = floe_map_state("prior", FLOE_TYPE_BYTES);
    return 0;
}

/* hold keeps the bytes of its first read while it makes the second: each
 * state handle has its own read buffer. */
static int hold(floe_ctx *ctx, floe_bytes v) {
    floe_bytes p;
    if (floe_value_get(ctx, held, &p) != FLOE_FOUND) p = floe_str("-");
    floe_iter it;
    floe_bytes k, pv;
    floe_map_entries(ctx, prior, &it);
    floe_buf *line = floe_scratch(ctx);
    floe_buf_append_bytes(line, floe_key(ctx));
    floe_buf_append_byte(line, ':');
    floe_buf_append_bytes(line, p);
    floe_buf_append_byte(line, ':');
    for (bool first = true; floe_map_next(&it, &k, &pv); first = false) {
        if (!first) floe_buf_append_byte(line, ';');
        floe_buf_append_bytes(line, k);
        floe_buf_append_byte(line, '=');
        floe_buf_append_bytes(line, pv);
    }
    floe_emit(ctx, line->data, line->len);
    floe_value_put(ctx, held, v.data, v.len);
    floe_map_put(ctx, prior, v.data, v.len, p.data, p.len);
    return 0;
}

/* ----------------------------------------------------------------- cell */

/* cell_raw and cell_int are one state, "cell", seen as bytes and as int64. */
static floe_state cell_raw, cell_int;

static int cell_open(floe_ctx *ctx) {
    (void)ctx;
    cell_raw = floe_value_state("cell", FLOE_TYPE_BYTES);
    cell_int = floe_value_state("cell", FLOE_TYPE_INT64);
    return 0;
}

/* cell tells an absent int64 value from a malformed one. */
static int cell(floe_ctx *ctx, floe_bytes v) {
    if (v.len >= 4 && memcmp(v.data, "set ", 4) == 0) {
        floe_value_put(ctx, cell_raw, v.data + 4, v.len - 4);
    } else if (v.len >= 4 && memcmp(v.data, "put ", 4) == 0) {
        int64_t n;
        if (!floe_parse_i64(floe_bytes_of(v.data + 4, v.len - 4), &n)) return floe_error(ctx, "not a number");
        floe_value_put_i64(ctx, cell_int, n);
    } else if (floe_bytes_eq(v, "get")) {
        int64_t n = 0;
        int got = floe_value_get_i64(ctx, cell_int, &n);
        if (got < 0) return got;
        floe_buf *line = floe_scratch(ctx);
        floe_buf_append_bytes(line, floe_key(ctx));
        floe_buf_append_byte(line, ':');
        if (got == FLOE_FOUND)
            floe_buf_append_i64(line, n);
        else
            floe_buf_append_str(line, "absent");
        floe_emit(ctx, line->data, line->len);
    }
    return 0;
}

/* -------------------------------------------------------------- session */

static floe_state last, nrec;

static int session_open(floe_ctx *ctx) {
    (void)ctx;
    last = floe_value_state("last", FLOE_TYPE_INT64);
    nrec = floe_value_state("n", FLOE_TYPE_INT64);
    return 0;
}

static int session(floe_ctx *ctx, floe_bytes v) {
    if (floe_bytes_eq(v, "wm?")) {
        floe_buf *line = floe_scratch(ctx);
        floe_buf_append_bytes(line, floe_key(ctx));
        floe_buf_append_str(line, ",wm,");
        floe_buf_append_i64(line, floe_current_watermark());
        floe_emit(ctx, line->data, line->len);
        return 0;
    }
    int64_t ts = floe_timestamp(ctx);
    if (ts == FLOE_NO_TIMESTAMP) return floe_error(ctx, "record without timestamp");
    int64_t gap, idle, l, n = 0;
    if (floe_param_i64(ctx, "gap", 10, &gap) != 0) return FLOE_FAILED;
    int got = floe_value_get_i64(ctx, last, &l);
    if (got < 0) return got;
    if (got == FLOE_FOUND) {
        floe_timer_delete(ctx, FLOE_EVENT_TIME, l + gap);
        if (ts > l) l = ts;
    } else {
        l = ts;
    }
    if (floe_value_get_i64(ctx, nrec, &n) < 0) return FLOE_FAILED;
    n++;
    floe_value_put_i64(ctx, last, l);
    floe_value_put_i64(ctx, nrec, n);
    floe_timer_register(ctx, FLOE_EVENT_TIME, l + gap);
    if (n == 1) {
        if (floe_param_i64(ctx, "idle", 1000, &idle) != 0) return FLOE_FAILED;
        floe_timer_register(ctx, FLOE_PROCESSING_TIME, floe_processing_time() + idle);
    }
    return 0;
}

static int session_timer(floe_ctx *ctx, floe_time_domain domain, int64_t t) {
    int64_t n = 0, l = 0;
    int has_n = floe_value_get_i64(ctx, nrec, &n);
    if (has_n < 0) return has_n;
    floe_buf *line = floe_scratch(ctx);
    floe_buf_append_bytes(line, floe_key(ctx));
    if (domain == FLOE_EVENT_TIME) {
        floe_value_get_i64(ctx, last, &l);
        floe_buf_append_str(line, ",session,");
        floe_buf_append_i64(line, n);
        floe_buf_append_byte(line, ',');
        floe_buf_append_i64(line, l);
        floe_emit(ctx, line->data, line->len);
        floe_value_delete(ctx, last);
        floe_value_delete(ctx, nrec);
        return 0;
    }
    if (has_n) {
        floe_buf_append_str(line, ",idle,");
        floe_buf_append_i64(line, n);
        floe_buf_append_byte(line, ',');
        floe_buf_append_i64(line, t);
        floe_emit(ctx, line->data, line->len);
    }
    return 0;
}

/* --------------------------------------------------------------- buffer */

static floe_state buffered, members;

/* buffer_open declares the lists and adds this subtask to members once. */
static int buffer_open(floe_ctx *ctx) {
    buffered = floe_operator_list_state("buffer", FLOE_EVEN_SPLIT, FLOE_TYPE_STRING);
    members = floe_operator_list_state("members", FLOE_UNION, FLOE_TYPE_STRING);
    floe_buf *me = floe_scratch(ctx);
    floe_buf_append_str(me, "subtask-");
    floe_buf_append_str(me, floe_param_or("floe.subtask", ""));
    floe_iter it;
    floe_bytes e;
    floe_operator_list_get(members, &it);
    while (floe_list_next(&it, &e))
        if (e.len == me->len && memcmp(e.data, me->data, e.len) == 0) return 0;
    floe_operator_list_append(members, me->data, me->len);
    return 0;
}

/* join appends the elements of list s to b, separated by '+', and returns
 * how many there were. */
static int64_t join(floe_buf *b, floe_state s) {
    floe_iter it;
    floe_bytes e;
    int64_t n = 0;
    floe_operator_list_get(s, &it);
    for (; floe_list_next(&it, &e); n++) {
        if (n) floe_buf_append_byte(b, '+');
        floe_buf_append_bytes(b, e);
    }
    return n;
}

static int buffer(floe_ctx *ctx, floe_bytes v) {
    floe_buf *line = floe_scratch(ctx);
    if (floe_bytes_eq(v, "?")) {
        floe_buf_append_str(line, "buffer=");
        join(line, buffered);
        floe_buf_append_str(line, ";members=");
        join(line, members);
        floe_emit(ctx, line->data, line->len);
        return 0;
    }
    int64_t size;
    if (floe_param_i64(ctx, "size", 3, &size) != 0) return FLOE_FAILED;
    floe_operator_list_append(buffered, v.data, v.len);
    if (join(line, buffered) >= size) {
        floe_emit(ctx, line->data, line->len);
        floe_operator_list_clear(buffered);
    }
    return 0;
}

/* ------------------------------------------------------------------- q1 */

/* q1 is Nexmark query 1 (udfs/q1): the bid "auction,bidder,price,channel,
 * url,dateTime" with its price, a non-negative integer of 1 to 18 digits,
 * turned from dollars to euros: price/1000*908 + price%1000*908/1000. */
static int q1(floe_ctx *ctx, floe_bytes bid, floe_buf *out) {
    const uint8_t *p = bid.data, *end = bid.data + bid.len;
    const uint8_t *commas[5];
    for (int i = 0; i < 5; i++) {
        ptrdiff_t j = floe_index_byte(p, (size_t)(end - p), ',');
        if (j < 0) return floe_error(ctx, "q1: a bid has 6 comma-separated fields");
        commas[i] = p + j;
        p += j + 1;
    }
    if (floe_index_byte(p, (size_t)(end - p), ',') >= 0) return floe_error(ctx, "q1: a bid has 6 comma-separated fields");
    const uint8_t *price = commas[1] + 1;
    size_t plen = (size_t)(commas[2] - price);
    if (plen == 0 || plen > 18) return floe_error(ctx, "q1: the price is not an integer of 1 to 18 digits");
    int64_t dollars = 0;
    for (size_t i = 0; i < plen; i++) {
        unsigned d = (unsigned)price[i] - '0';
        if (d > 9) return floe_error(ctx, "q1: the price is not an integer of 1 to 18 digits");
        dollars = dollars * 10 + d;
    }
    int64_t euros = dollars / 1000 * 908 + dollars % 1000 * 908 / 1000;
    floe_buf_append(out, bid.data, (size_t)(price - bid.data));
    floe_buf_append_i64(out, euros);
    floe_buf_append(out, commas[2], (size_t)(end - commas[2]));
    return 0;
}

/* ---------------------------------------------------------- left/right */

/* pending holds a key's unmatched record of left ("L" + value) or right
 * ("R" + value): the two functions of one two-input operator share it. */
static floe_state pending;

static int pair_open(floe_ctx *ctx) {
    (void)ctx;
    pending = floe_value_state("pending", 0);
    return 0;
}

static int match(floe_ctx *ctx, char mine, char other, floe_bytes v) {
    floe_bytes p;
    int got = floe_value_get(ctx, pending, &p);
    if (got < 0) return got;
    if (got == FLOE_FOUND && p.len > 0 && p.data[0] == (uint8_t)other) {
        floe_bytes l = v, r = floe_bytes_of(p.data + 1, p.len - 1);
        if (mine == 'R') {
            l = r;
            r = v;
        }
        floe_buf *line = floe_scratch(ctx);
        floe_buf_append_bytes(line, floe_key(ctx));
        floe_buf_append_byte(line, ',');
        floe_buf_append_bytes(line, l);
        floe_buf_append_byte(line, ',');
        floe_buf_append_bytes(line, r);
        floe_emit(ctx, line->data, line->len);
        floe_value_delete(ctx, pending);
        return 0;
    }
    floe_buf *val = floe_scratch(ctx);
    floe_buf_append_byte(val, (uint8_t)mine);
    floe_buf_append_bytes(val, v);
    floe_value_put(ctx, pending, val->data, val->len);
    floe_timer_register(ctx, FLOE_EVENT_TIME, 100);
    return 0;
}

static int left(floe_ctx *ctx, floe_bytes v) { return match(ctx, 'L', 'R', v); }
static int right(floe_ctx *ctx, floe_bytes v) { return match(ctx, 'R', 'L', v); }

/* unmatched is the one timer handler of left/right, whichever set it. */
static int unmatched(floe_ctx *ctx, floe_time_domain domain, int64_t t) {
    (void)domain;
    (void)t;
    floe_bytes p;
    int got = floe_value_get(ctx, pending, &p);
    if (got < 0) return got;
    if (got != FLOE_FOUND) return 0;
    floe_buf *line = floe_scratch(ctx);
    floe_buf_append_bytes(line, floe_key(ctx));
    floe_buf_append_str(line, ",unmatched,");
    floe_buf_append_bytes(line, p);
    floe_emit(ctx, line->data, line->len);
    floe_value_delete(ctx, pending);
    return 0;
}

/* ---------------------------------------------------------- watch/rule */

/* rules is the broadcast state of watch (the keyed function) and rule (the
 * broadcast function): rule name to pattern. hits counts watch's records
 * per key. */
static floe_state rules, hits;

static int rules_open(floe_ctx *ctx) {
    (void)ctx;
    rules = floe_broadcast_state("rules", 0);
    hits = floe_value_state("hits", FLOE_TYPE_INT64);
    return 0;
}

/* contains reports whether pattern occurs in v (an empty one always does). */
static bool contains(floe_bytes v, floe_bytes pattern) {
    if (pattern.len > v.len) return false;
    for (size_t i = 0; i + pattern.len <= v.len; i++) {
        if (memcmp(v.data + i, pattern.data, pattern.len) == 0) return true;
    }
    return false;
}

static int watch(floe_ctx *ctx, floe_bytes v) {
    if (floe_bytes_eq(v, "write")) {
        floe_broadcast_put(rules, "x", 1, "y", 1);
        return 0;
    }
    int64_t n = 0;
    int got = floe_value_get_i64(ctx, hits, &n);
    if (got < 0) return got;
    n++;
    floe_value_put_i64(ctx, hits, n);
    floe_buf *line = floe_scratch(ctx);
    floe_buf_append_bytes(line, floe_key(ctx));
    floe_buf_append_byte(line, '#');
    floe_buf_append_i64(line, n);
    floe_buf_append_byte(line, ':');
    floe_buf_append_bytes(line, v);
    floe_buf_append_byte(line, ':');
    floe_iter it;
    floe_bytes name, pattern;
    bool first = true;
    if (floe_broadcast_entries(rules, &it)) {
        while (floe_map_next(&it, &name, &pattern)) {
            if (!contains(v, pattern)) continue;
            if (!first) floe_buf_append_byte(line, '+');
            floe_buf_append_bytes(line, name);
            first = false;
        }
    }
    floe_emit(ctx, line->data, line->len);
    return 0;
}

static int rule(floe_ctx *ctx, floe_bytes v) {
    if (floe_bytes_eq(v, "count")) {
        int64_t n;
        int got = floe_value_get_i64(ctx, hits, &n);
        return got < 0 ? got : 0;
    }
    floe_buf *line = floe_scratch(ctx);
    if (floe_bytes_eq(v, "?")) {
        floe_buf_append_str(line, "rules:");
        floe_iter it;
        floe_bytes name, pattern;
        bool first = true;
        if (floe_broadcast_entries(rules, &it)) {
            while (floe_map_next(&it, &name, &pattern)) {
                if (!first) floe_buf_append_byte(line, ';');
                floe_buf_append_bytes(line, name);
                floe_buf_append_byte(line, '=');
                floe_buf_append_bytes(line, pattern);
                first = false;
            }
        }
        floe_emit(ctx, line->data, line->len);
        return 0;
    }
    if (floe_bytes_eq(v, "!")) {
        floe_broadcast_clear(rules);
        floe_emit(ctx, "!", 1);
        return 0;
    }
    if (v.len > 0 && v.data[0] == '-') {
        floe_broadcast_delete(rules, v.data + 1, v.len - 1);
        floe_emit(ctx, v.data, v.len);
        return 0;
    }
    size_t eq = 0;
    while (eq < v.len && v.data[eq] != '=') eq++;
    floe_bytes name = floe_bytes_of(v.data, eq);
    floe_bytes pattern = eq < v.len ? floe_bytes_of(v.data + eq + 1, v.len - eq - 1) : floe_bytes_of(v.data, 0);
    floe_bytes old;
    int got = floe_broadcast_get(rules, name.data, name.len, &old);
    if (got < 0) return got;
    if (got == FLOE_FOUND) {
        floe_buf_append_byte(line, '~');
        floe_buf_append_bytes(line, name);
        floe_buf_append_byte(line, '=');
        floe_buf_append_bytes(line, old);
        floe_emit(ctx, line->data, line->len);
    }
    floe_broadcast_put(rules, name.data, name.len, pattern.data, pattern.len);
    line = floe_scratch(ctx);
    floe_buf_append_byte(line, '+');
    floe_buf_append_bytes(line, name);
    floe_emit(ctx, line->data, line->len);
    return 0;
}

/* ----------------------------------------------------------- price_band */

/* price_band(price BIGINT) RETURNS VARCHAR: a SQL function. */
static int price_band(floe_ctx *ctx, const floe_sql_value *args, int nargs, floe_sql_value *result) {
    (void)ctx;
    if (nargs < 1 || args[0].type == FLOE_SQL_NULL) return 0;
    int64_t price = args[0].bigint;
    *result = floe_sql_varchar(floe_str(price < 100 ? "low" : price < 700 ? "mid" : "high"));
    return 0;
}

/* pick(c BOOLEAN, a T, b T) RETURNS T: a SQL function of any type T. */
static int pick(floe_ctx *ctx, const floe_sql_value *args, int nargs, floe_sql_value *result) {
    if (nargs < 3) return floe_error(ctx, "pick takes 3 arguments, got %d", nargs);
    if (args[0].type != FLOE_SQL_NULL) *result = args[0].boolean ? args[1] : args[2];
    return 0;
}

/* --------------------------------------------------------- registration */

/* ------------------------------------------------------ series, spread */

/* series(n BIGINT, s VARCHAR) RETURNS TABLE (i BIGINT, tag VARCHAR): the
 * rows (i, s || '#' || i) for i = 1 ... n % 5, a SQL table function. */
static int series(floe_ctx *ctx, const floe_sql_value *args, int nargs, floe_buf *rows) {
    if (nargs < 2) return floe_error(ctx, "series takes 2 arguments, got %d", nargs);
    if (args[0].type != FLOE_SQL_BIGINT || args[0].bigint <= 0) return 0;
    floe_buf *tag = floe_scratch(ctx);
    for (int64_t i = 1; i <= args[0].bigint % 5; i++) {
        floe_sql_append_value(rows, floe_sql_bigint(i));
        if (args[1].type != FLOE_SQL_VARCHAR) {
            floe_sql_append_value(rows, floe_sql_null());
            continue;
        }
        floe_buf_reset(tag);
        floe_buf_append(tag, args[1].varchar.data, args[1].varchar.len);
        floe_buf_append_byte(tag, '#');
        floe_buf_append_i64(tag, i);
        floe_sql_append_value(rows, floe_sql_varchar(floe_bytes_of(tag->data, tag->len)));
    }
    return 0;
}

/* spread(x BIGINT) RETURNS BIGINT: MAX(x) - MIN(x) of the non-NULL x, a
 * SQL aggregate. Its accumulator is the count, min and max, 3 x 8 bytes. */
struct span {
    int64_t n, lo, hi;
};

static struct span span_of(floe_bytes b) {
    struct span s = {0, 0, 0};
    if (b.len == sizeof s) memcpy(&s, b.data, sizeof s);
    return s;
}

static void set_span(floe_buf *acc, struct span s) {
    acc->len = 0;
    floe_buf_append(acc, &s, sizeof s);
}

static struct span merge_spans(struct span a, struct span b) {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    struct span m = {a.n + b.n, a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
    return m;
}

static int spread_create(floe_ctx *ctx, floe_buf *acc) {
    (void)ctx;
    set_span(acc, (struct span){0, 0, 0});
    return 0;
}

static int spread_add(floe_ctx *ctx, floe_buf *acc, const floe_sql_value *args, int nargs) {
    if (nargs < 1) return floe_error(ctx, "spread takes 1 argument, got %d", nargs);
    if (args[0].type != FLOE_SQL_BIGINT) return 0;
    struct span one = {1, args[0].bigint, args[0].bigint};
    set_span(acc, merge_spans(span_of(floe_bytes_of(acc->data, acc->len)), one));
    return 0;
}

static int spread_merge(floe_ctx *ctx, floe_buf *acc, floe_bytes other) {
    (void)ctx;
    set_span(acc, merge_spans(span_of(floe_bytes_of(acc->data, acc->len)), span_of(other)));
    return 0;
}

static int spread_result(floe_ctx *ctx, floe_bytes acc, floe_sql_value *result) {
    (void)ctx;
    struct span s = span_of(acc);
    if (s.n > 0) *result = floe_sql_bigint(s.hi - s.lo);
    return 0;
}

static const floe_sql_aggregate spread = {spread_create, spread_add, spread_merge, spread_result};

void floe_init(void) {
    floe_register_map("upper", upper);
    floe_register_sql_table_function("series", series);
    floe_register_sql_aggregate("spread", &spread);
    floe_register_sql_function("price_band", price_band);
    floe_register_sql_function("pick", pick);
    floe_register_filter("evens", evens);
    floe_function_on_open(floe_register_flat_map("split", split), split_open);
    floe_register_map("tag", tag);
    floe_function_on_open(floe_register_process("count", count), count_open);
    floe_function_on_open(floe_register_process("distinct", distinct), distinct_open);
    floe_function_on_open(floe_register_process("hold", hold), hold_open);
    floe_function_on_open(floe_register_process("cell", cell), cell_open);
    floe_function *s = floe_register_process("session", session);
    floe_function_on_open(s, session_open);
    floe_function_on_timer(s, session_timer);
    floe_function_on_open(floe_register_flat_map("buffer", buffer), buffer_open);
    floe_register_map("q1", q1);
    floe_function_on_open(floe_register_process("keyedcount", keyedcount), keyedcount_open);
    floe_function *l = floe_register_process("left", left);
    floe_function_on_open(l, pair_open);
    floe_function_on_timer(l, unmatched);
    floe_function_on_open(floe_register_process("right", right), pair_open);
    floe_function_on_open(floe_register_process("watch", watch), rules_open);
    floe_function_on_open(floe_register_process("rule", rule), rules_open);
}
