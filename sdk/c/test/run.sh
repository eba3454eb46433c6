#!/bin/sh
# run.sh: builds the C SDK's unit tests for wasm32-wasi with Debian's clang
# and wasi-libc and runs them under node's WASI.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for t in "$HERE"/*_test.c; do
    ${CC:-clang} --target=wasm32-wasi -O2 -mbulk-memory -Wall -Wextra -Werror -I "$HERE/.." \
        -o "$OUT/test.wasm" "$t" "$HERE/../floe.c"
    node --no-warnings "$HERE/run.mjs" "$OUT/test.wasm"
done
