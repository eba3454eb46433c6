#!/bin/sh
# Builds the conformance operators written with the Rust SDK (sdk/rust) to
# the WebAssembly module OUT, an absolute path.
#
# It uses Debian's Rust toolchain (rustc 1.63 with the wasm32 standard
# library), or any toolchain given by FLOE_RUSTC and FLOE_CARGO that has a
# wasm32-wasi (or wasm32-wasip1) standard library. Nothing is downloaded:
# the SDK has no dependencies.
set -eu

usage="usage: build.sh OUT (an absolute path)"
out=${1:?$usage}
case $out in
/*) ;;
*) echo "build.sh: $usage, got $out" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)

install="apt-get install -y rustc cargo libstd-rust-dev-wasm32 lld-14"
missing() {
	echo "build.sh: cannot build the Rust conformance module: $1." >&2
	echo "Install Debian's Rust toolchain for wasm32: $install" >&2
	exit 1
}

rustc=${FLOE_RUSTC:-/usr/bin/rustc}
cargo=${FLOE_CARGO:-/usr/bin/cargo}
[ -x "$rustc" ] || missing "no $rustc (package rustc)"
[ -x "$cargo" ] || missing "no $cargo (package cargo)"
sysroot=$("$rustc" --print sysroot)
target=
for t in wasm32-wasi wasm32-wasip1; do
	if [ -d "$sysroot/lib/rustlib/$t/lib" ]; then
		target=$t
		break
	fi
done
[ -n "$target" ] || missing "$rustc has no wasm32-wasi standard library (package libstd-rust-dev-wasm32)"
# Debian's rustc links wasm with rust-lld, a link to lld-14's lld.
if [ "$sysroot" = /usr ] && [ ! -e "$(readlink -f /usr/bin/rust-lld 2>/dev/null || echo /nonexistent)" ]; then
	missing "no wasm linker: /usr/bin/rust-lld points nowhere (package lld-14)"
fi

cd "$here"
target_dir=${CARGO_TARGET_DIR:-$here/target}
RUSTC=$rustc CARGO_TARGET_DIR=$target_dir "$cargo" build --quiet --offline --release \
	--manifest-path "$here/Cargo.toml" --target "$target"
cp "$target_dir/$target/release/floe_conformance.wasm" "$out"
