/* Unit tests of the C SDK's SQL value codec (floe_sql_*), on encodings
 * worked by hand from sdk/ABI.md's "SQL functions" table: a tag byte, then
 * one byte for BOOLEAN, 8 little-endian bytes for BIGINT and DOUBLE, a
 * uvarint length and the bytes for VARCHAR. Built for wasm32-wasi with the
 * SDK and run by run.sh. */
#include <stdio.h>
#include <stdlib.h>

#include "floe.h"

void floe_init(void) {}

static int failures;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                  \
            fprintf(stderr, "\n");                         \
            failures++;                                    \
        }                                                  \
    } while (0)

static const uint8_t row[] = {
    0,                                                /* NULL */
    1, 1,                                             /* TRUE */
    2, 0xf4, 0x01, 0, 0, 0, 0, 0, 0,                  /* 500 */
    2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* -1 */
    3, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f,                  /* 1.5 */
    4, 3, 'a', 'b', 'c',                              /* 'abc' */
};

static void decodes_a_row(void) {
    floe_sql_value v[8];
    int n = floe_sql_decode_row(floe_bytes_of(row, sizeof row), v, 8);
    CHECK(n == 6, "decoded %d values, want 6", n);
    CHECK(v[0].type == FLOE_SQL_NULL, "value 1 has type %d", v[0].type);
    CHECK(v[1].type == FLOE_SQL_BOOLEAN && v[1].boolean, "value 2 is not TRUE");
    CHECK(v[2].type == FLOE_SQL_BIGINT && v[2].bigint == 500, "value 3 is not 500");
    CHECK(v[3].type == FLOE_SQL_BIGINT && v[3].bigint == -1, "value 4 is not -1");
    CHECK(v[4].type == FLOE_SQL_DOUBLE && v[4].dbl == 1.5, "value 5 is not 1.5");
    CHECK(v[5].type == FLOE_SQL_VARCHAR && floe_bytes_eq(v[5].varchar, "abc"), "value 6 is not 'abc'");
    CHECK(floe_sql_decode_row(floe_bytes_of(row, 0), v, 8) == 0, "an empty row is not 0 values");
    /* A short dst gets the first values and the count of all. */
    n = floe_sql_decode_row(floe_bytes_of(row, sizeof row), v, 2);
    CHECK(n == 6, "decoded %d values into 2, want the count 6", n);
}

static void encodes_each_value(void) {
    floe_buf b = {0};
    floe_sql_append_value(&b, floe_sql_null());
    floe_sql_append_value(&b, floe_sql_boolean(true));
    floe_sql_append_value(&b, floe_sql_bigint(500));
    floe_sql_append_value(&b, floe_sql_bigint(-1));
    floe_sql_append_value(&b, floe_sql_double(1.5));
    floe_sql_append_value(&b, floe_sql_varchar(floe_str("abc")));
    CHECK(b.len == sizeof row && memcmp(b.data, row, sizeof row) == 0, "encoding differs (%zu bytes)", b.len);
    floe_buf_free(&b);
}

static void long_varchar_has_a_two_byte_length(void) {
    /* 200 = 0b1_1001000: 0x48 with the continuation bit, then 0x01. */
    char s[200];
    memset(s, 'x', sizeof s);
    floe_buf b = {0};
    floe_sql_append_value(&b, floe_sql_varchar(floe_bytes_of(s, sizeof s)));
    CHECK(b.len == 203 && b.data[0] == 4 && b.data[1] == 0xc8 && b.data[2] == 0x01, "bad length prefix");
    floe_sql_value v;
    int n = floe_sql_decode_row(floe_buf_bytes(&b), &v, 1);
    CHECK(n == 1 && v.varchar.len == 200 && v.varchar.data == b.data + 3, "decoded %d values", n);
    floe_buf_free(&b);
}

static void refuses_malformed_rows(void) {
    static const struct {
        uint8_t b[4];
        size_t len;
        int want;
    } cases[] = {
        {{2, 1, 2, 3}, 4, -1}, /* BIGINT with 3 bytes */
        {{0, 1}, 2, -2},       /* BOOLEAN without its byte */
        {{4, 5, 'a'}, 3, -1},  /* VARCHAR of 5 bytes with 1 */
        {{4, 0x80}, 2, -1},    /* uvarint cut short */
        {{0, 0, 9}, 3, -3},    /* unknown tag */
    };
    floe_sql_value v[4];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = floe_sql_decode_row(floe_bytes_of(cases[i].b, cases[i].len), v, 4);
        CHECK(n == cases[i].want, "case %zu: got %d, want %d", i, n, cases[i].want);
    }
}

int main(void) {
    decodes_a_row();
    encodes_each_value();
    long_varchar_has_a_two_byte_length();
    refuses_malformed_rows();
    if (failures) {
        fprintf(stderr, "FAIL: %d checks\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
