#!/bin/sh
# Builds {{.Name}}.wasm from assembly/index.ts with the AssemblyScript SDK in
# floe-sdk/. It needs Node.js 20+ and npm, and installs the compiler the first
# time (npm install).
set -eu
cd "$(dirname "$0")"

for tool in node npm; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "build.sh: $tool not found: AssemblyScript needs Node.js 20+ and npm (Debian: apt-get install nodejs npm)" >&2
		exit 1
	fi
done
if ! node -e 'process.exit(parseInt(process.versions.node) < 20 ? 1 : 0)'; then
	echo "build.sh: AssemblyScript 0.28 needs Node.js 20+, this is $(node --version)" >&2
	exit 1
fi
if [ ! -f floe-sdk/assembly/index.ts ]; then
	echo "build.sh: floe-sdk/ is missing: copy Floe's sdk/assemblyscript (package.json and assembly/) there" >&2
	exit 1
fi
if [ ! -x node_modules/.bin/asc ] || [ ! -e node_modules/floe-sdk ]; then
	npm install --no-audit --no-fund --loglevel=error
fi
npm run --silent build
echo "built {{.Name}}.wasm"
