#!/bin/sh
# Builds {{.Name}}.wasm, next to job.yaml, from src/ and the Floe Rust SDK
# in floe-sdk/.
#
# It uses Debian's Rust toolchain (rustc 1.63 with the wasm32 standard
# library), or any toolchain given by FLOE_RUSTC and FLOE_CARGO that has a
# wasm32-wasi (or wasm32-wasip1) standard library. Nothing is downloaded.
set -eu
cd "$(dirname "$0")"

missing() {
	echo "build.sh: cannot build {{.Name}}.wasm: $1." >&2
	echo "Install Debian's Rust toolchain for wasm32: apt-get install -y rustc cargo libstd-rust-dev-wasm32 lld-14" >&2
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
[ -f floe-sdk/Cargo.toml ] || {
	echo "build.sh: no floe-sdk/: copy the Floe Rust SDK (sdk/rust in Floe's repository) there" >&2
	exit 1
}

target_dir=${CARGO_TARGET_DIR:-target}
RUSTC=$rustc CARGO_TARGET_DIR=$target_dir "$cargo" build --quiet --offline --release --target "$target"
cp "$target_dir/$target/release/$(echo "{{.Name}}" | tr - _).wasm" "{{.Name}}.wasm"
echo "built {{.Name}}.wasm"
