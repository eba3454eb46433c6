// Runs a wasm32-wasi test program built with the C SDK (argv[2]) under
// node's WASI. The SDK's floe_v1 imports are stubs that fail the test if
// called: the tests here exercise code that needs no host.
import { readFile } from "node:fs/promises";
import { WASI } from "node:wasi";

const wasi = new WASI({ version: "preview1", args: [], env: {} });
const module = await WebAssembly.compile(await readFile(process.argv[2]));
const floe = {};
for (const imp of WebAssembly.Module.imports(module)) {
  if (imp.module === "floe_v1") floe[imp.name] = () => { throw new Error(`floe_v1.${imp.name} called`); };
}
const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport, floe_v1: floe });
process.exitCode = wasi.start(instance);
