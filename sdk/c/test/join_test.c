/* Unit tests of the C SDK's join pair decoder (floe_split_pair), on frames
 * written out byte by byte from sdk/ABI.md's "Join functions" layout:
 * u32 left_len little-endian, left, u8 has_right, right. Built for
 * wasm32-wasi with the SDK and run by run.sh. */
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

static void splits_well_formed_frames(void) {
    static const struct {
        const char *name;
        uint8_t b[12];
        size_t len;
        const char *left, *right;
        bool has_right;
    } cases[] = {
        {"pair", {2, 0, 0, 0, 'l', '1', 1, 'r', '1', '2'}, 10, "l1", "r12", true},
        {"empty left", {0, 0, 0, 0, 1, 'r'}, 6, "", "r", true},
        {"empty right", {3, 0, 0, 0, 'a', 'b', 'c', 1}, 8, "abc", "", true},
        {"unmatched left", {1, 0, 0, 0, 'x', 0}, 6, "x", "", false},
        {"both empty", {0, 0, 0, 0, 1}, 5, "", "", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        floe_bytes left, right;
        bool has_right;
        int st = floe_split_pair(floe_bytes_of(cases[i].b, cases[i].len), &left, &right, &has_right);
        CHECK(st == FLOE_PAIR_OK, "%s: status %d (%s)", cases[i].name, st, floe_pair_error(st));
        if (st != FLOE_PAIR_OK) continue;
        CHECK(floe_bytes_eq(left, cases[i].left), "%s: left of %zu bytes, want \"%s\"", cases[i].name, left.len,
              cases[i].left);
        CHECK(floe_bytes_eq(right, cases[i].right), "%s: right of %zu bytes, want \"%s\"", cases[i].name,
              right.len, cases[i].right);
        CHECK(has_right == cases[i].has_right, "%s: has_right %d", cases[i].name, has_right);
        CHECK(left.data == cases[i].b + 4, "%s: left does not view the frame", cases[i].name);
    }
}

static void refuses_malformed_frames(void) {
    static const struct {
        const char *name;
        uint8_t b[8];
        size_t len;
        int want;
    } cases[] = {
        {"empty", {0}, 0, FLOE_PAIR_SHORT},
        {"shorter than the header", {0, 0, 0, 0}, 4, FLOE_PAIR_SHORT},
        {"left_len past the end", {3, 0, 0, 0, 'a', 'b', 1}, 7, FLOE_PAIR_LEFT_PAST_END},
        {"left_len fills the frame, no flag", {2, 0, 0, 0, 'a', 'b'}, 6, FLOE_PAIR_LEFT_PAST_END},
        {"left_len near 2^32", {0xff, 0xff, 0xff, 0xff, 1}, 5, FLOE_PAIR_LEFT_PAST_END},
        {"has_right 2", {1, 0, 0, 0, 'a', 2, 'b'}, 7, FLOE_PAIR_BAD_FLAG},
        {"has_right 0 with right bytes", {1, 0, 0, 0, 'a', 0, 'b'}, 7, FLOE_PAIR_RIGHT_UNFLAGGED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        floe_bytes left, right;
        bool has_right;
        int st = floe_split_pair(floe_bytes_of(cases[i].b, cases[i].len), &left, &right, &has_right);
        CHECK(st == cases[i].want, "%s: status %d, want %d", cases[i].name, st, cases[i].want);
    }
}

static void describes_each_status(void) {
    CHECK(strcmp(floe_pair_error(FLOE_PAIR_BAD_FLAG), "malformed join pair: has_right is neither 0 nor 1") == 0,
          "FLOE_PAIR_BAD_FLAG: %s", floe_pair_error(FLOE_PAIR_BAD_FLAG));
    CHECK(strcmp(floe_pair_error(FLOE_PAIR_RIGHT_UNFLAGGED),
                 "malformed join pair: right bytes follow a has_right of 0") == 0,
          "FLOE_PAIR_RIGHT_UNFLAGGED: %s", floe_pair_error(FLOE_PAIR_RIGHT_UNFLAGGED));
    CHECK(strcmp(floe_pair_error(-9), "join pair: unknown status") == 0, "-9: %s", floe_pair_error(-9));
}

int main(void) {
    splits_well_formed_frames();
    refuses_malformed_frames();
    describes_each_status();
    if (failures) {
        fprintf(stderr, "FAIL: %d checks\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
