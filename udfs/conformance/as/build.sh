#!/bin/sh
# Builds the AssemblyScript conformance module to the absolute path OUT:
#   sh udfs/conformance/as/build.sh OUT
# It needs Node.js 20+ and npm; it installs the SDK's pinned AssemblyScript
# compiler (npm ci in sdk/assemblyscript) the first time.
set -eu

out=${1:-}
case "$out" in
/*) ;;
*) echo "usage: build.sh OUT (an absolute path)" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
sdk=$(cd "$here/../../../sdk/assemblyscript" && pwd)

for tool in node npm; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "build.sh: $tool not found: the AssemblyScript SDK needs Node.js 20+ and npm (Debian: apt-get install nodejs npm)" >&2
		exit 1
	fi
done
if ! node -e 'process.exit(parseInt(process.versions.node) < 20 ? 1 : 0)'; then
	echo "build.sh: AssemblyScript 0.28 needs Node.js 20+, this is $(node --version)" >&2
	exit 1
fi

if [ ! -x "$sdk/node_modules/.bin/asc" ]; then
	(cd "$sdk" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi

# asc resolves --use abort=… against the directory it runs in.
cd "$here"
exec "$sdk/node_modules/.bin/asc" assembly/index.ts -o "$out" \
	--runtime incremental -O3 --noAssert --enable simd \
	--use abort=../../../sdk/assemblyscript/assembly/runtime/floeAbort
