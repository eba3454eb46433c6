/*
 * misbehave.c: operators that misuse what the host gives a guest, for the
 * host's tests of its caps (sdk/ABI.md, "Sandboxing"). Built by build.sh
 * with the C SDK: C because Go and Rust have no way to say table.grow.
 *
 *   table-grow   grows the indirect function table a million entries at a
 *                time, up to 64M entries (512 MiB of host memory), and fails
 *                saying where table.grow was refused, or that it never was.
 *   log-flood    logs 100,000 lines of 100 bytes for each record.
 *   huge-log     logs one line of 1 MiB for each record.
 *   huge-fail    fails with a message of 8 MiB, then traps.
 *
 * And one that behaves, for the tests of what a guest logs:
 *
 *   log-each     logs "record R token T" for each record R, T being the job
 *                parameter token ("-" when absent), and passes R on.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe.h"

/* The ABI's log and fail, called directly: the SDK's own cut lines to 1 KiB. */
__attribute__((import_module("floe_v1"), import_name("log"))) void raw_log(int32_t level, const char *p, int32_t n);
__attribute__((import_module("floe_v1"), import_name("fail"))) void raw_fail(int32_t rec, const char *p, int32_t n);

/* grow adds n null entries to the indirect function table and returns its
 * old size, or -1 when the host refuses. */
static int32_t grow(int32_t n) {
    int32_t r;
    __asm__ volatile(
        "ref.null_func\n"
        "local.get %1\n"
        "table.grow __indirect_function_table\n"
        "local.set %0\n"
        : "=r"(r)
        : "r"(n));
    return r;
}

static int table_grow(floe_ctx *ctx, floe_bytes value) {
    (void)value;
    int64_t total = 0;
    for (int i = 0; i < 64; i++) {
        if (grow(1 << 20) < 0) return floe_error(ctx, "table.grow refused after %lld entries added", (long long)total);
        total += 1 << 20;
    }
    return floe_error(ctx, "table grew by %lld entries", (long long)total);
}

static char *filled(size_t n) {
    char *p = malloc(n);
    if (p) memset(p, 'x', n);
    return p;
}

static int log_flood(floe_ctx *ctx, floe_bytes value) {
    char line[100];
    memset(line, 'y', sizeof line);
    for (int i = 0; i < 100000; i++) raw_log(FLOE_LOG_INFO, line, sizeof line);
    floe_emit(ctx, value.data, value.len);
    return 0;
}

static int huge_log(floe_ctx *ctx, floe_bytes value) {
    size_t n = 1 << 20;
    char *p = filled(n);
    if (!p) return floe_error(ctx, "out of memory");
    raw_log(FLOE_LOG_INFO, p, (int32_t)n);
    free(p);
    floe_emit(ctx, value.data, value.len);
    return 0;
}

static int huge_fail(floe_ctx *ctx, floe_bytes value) {
    (void)ctx;
    (void)value;
    size_t n = 8 << 20;
    char *p = filled(n);
    if (!p) return floe_error(ctx, "out of memory");
    raw_fail(0, p, (int32_t)n);
    __builtin_trap(); /* so that the SDK does not report an error of its own */
}

static int log_each(floe_ctx *ctx, floe_bytes value) {
    floe_log(FLOE_LOG_INFO, "record %.*s token %s", (int)value.len, (const char *)value.data, floe_param_or("token", "-"));
    floe_emit(ctx, value.data, value.len);
    return 0;
}

void floe_init(void) {
    floe_register_flat_map("table-grow", table_grow);
    floe_register_flat_map("log-flood", log_flood);
    floe_register_flat_map("huge-log", huge_log);
    floe_register_flat_map("huge-fail", huge_fail);
    floe_register_flat_map("log-each", log_each);
}
