#!/bin/sh
# build.sh OUT: builds the C test module of misbehaving operators (misbehave.c with the C SDK,
# sdk/c) to the absolute path OUT, with Debian's clang and wasi-libc.
set -eu

usage() { echo "usage: $0 /absolute/path/out.wasm" >&2; exit 2; }
[ $# -eq 1 ] || usage
case $1 in /*) ;; *) usage ;; esac
OUT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
SDK=$HERE/../../../sdk/c
CC=${CC:-clang}
CFLAGS="--target=wasm32-wasi -mexec-model=reactor -O2 -mbulk-memory -mreference-types"
PACKAGES="clang lld wasi-libc libclang-rt-dev-wasm32"

missing() {
    echo "$0: $1" >&2
    echo "$0: the C SDK needs clang with WASI support: apt-get install $PACKAGES" >&2
    exit 1
}

command -v "$CC" >/dev/null 2>&1 || missing "no C compiler \"$CC\" on PATH"

if ! $CC $CFLAGS -Wall -Wextra -I "$SDK" -o "$OUT" "$HERE/misbehave.c" "$SDK/floe.c" -Wl,--strip-debug -Wl,--growable-table; then
    # Tell a missing toolchain (no wasi-libc, lld or wasm32 builtins) from an
    # error in the sources.
    probe=$(mktemp -d)
    trap 'rm -rf "$probe"' EXIT
    printf '#include <string.h>\nint floe_probe(char *p, int n) { return (int)strlen(memset(p, 1, (size_t)n)); }\n' >"$probe/probe.c"
    $CC $CFLAGS -o "$probe/probe.wasm" "$probe/probe.c" >/dev/null 2>&1 ||
        missing "$CC cannot build for wasm32-wasi"
    exit 1
fi
