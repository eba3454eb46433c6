/*
 * {{.Name}}: a Floe operator module written in C with the Floe C SDK
 * (floe-sdk/floe.h). It counts words: "split" turns each line into its
 * lower-cased words, the job keys them by word, and "count" keeps each word's
 * count in keyed state and emits "word,count" on every update.
 *
 * Build with `make`; run with `make run` (see README.md).
 */
#include "floe.h"

/* ---------------------------------------------------------------- split */

/* lower holds the lower-cased copy of the line being split. It is reused
 * from line to line, so the hot path allocates only while it grows. */
static floe_buf lower;

static bool is_word_byte(uint8_t c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* split emits the lower-cased words of a line: runs of ASCII letters and
 * digits; every other byte separates words. */
static int split(floe_ctx *ctx, floe_bytes line) {
    floe_buf_reset(&lower);
    floe_buf_append_bytes(&lower, line);
    size_t start = 0;
    bool in_word = false;
    for (size_t i = 0; i < lower.len; i++) {
        uint8_t c = lower.data[i];
        if (c >= 'A' && c <= 'Z') lower.data[i] = c = (uint8_t)(c - 'A' + 'a');
        if (is_word_byte(c)) {
            if (!in_word) start = i;
            in_word = true;
        } else if (in_word) {
            floe_emit(ctx, lower.data + start, i - start);
            in_word = false;
        }
    }
    if (in_word) floe_emit(ctx, lower.data + start, lower.len - start);
    return 0;
}

/* ---------------------------------------------------------------- count */

/* counts holds each word's number of occurrences. It is queryable, so a
 * running job answers "how often has this word been seen?". */
static floe_state counts;

static int count_open(floe_ctx *ctx) {
    (void)ctx;
    counts = floe_value_state("counts", FLOE_TYPE_INT64 | FLOE_QUERYABLE);
    return 0;
}

/* count adds one to the word's count and emits "word,count". The word is
 * the record's key (the job keys by value). */
static int count(floe_ctx *ctx, floe_bytes word) {
    int64_t n = 0; /* stays 0 when the word has no count yet */
    if (floe_value_get_i64(ctx, counts, &n) < 0) return FLOE_FAILED; /* not 8 bytes */
    floe_value_put_i64(ctx, counts, ++n);
    floe_buf *out = floe_scratch(ctx);
    floe_buf_append_bytes(out, word);
    floe_buf_append_byte(out, ',');
    floe_buf_append_i64(out, n);
    floe_emit(ctx, out->data, out->len);
    return 0;
}

/* floe_init registers the module's functions; job.yaml picks them by name. */
void floe_init(void) {
    floe_register_flat_map("split", split);
    floe_function *c = floe_register_process("count", count);
    floe_function_on_open(c, count_open);
}
