// Floe's AssemblyScript SDK: write stream operators as WebAssembly modules
// for the floe_v1 ABI (sdk/ABI.md).
//
//   import * as floe from "floe-sdk/assembly";
//   import { Bytes, Builder } from "floe-sdk/assembly";
//   export * from "floe-sdk/assembly/exports";
//
//   const line = new Builder();
//   floe.map("shout", (v: Bytes): Bytes => line.reset().bytes(v).string("!").view());
//
// Build with `asc assembly/index.ts --runtime incremental -O3 --use abort=…`
// (see the SDK's README.md): the host provides no `env` imports.

export { Bytes, Builder } from "./bytes";
export { Params } from "./params";
export { Pair, splitPair } from "./join";
export {
  NO_TIMESTAMP,
  TimeDomain,
  LogLevel,
  Output,
  Context,
  Timer,
  Registration,
  MapFn,
  FilterFn,
  FlatMapFn,
  ProcessFn,
  TimerFn,
  OpenFn,
  CloseFn,
  map,
  filter,
  flatMap,
  process,
  keySelector,
  onOpen,
  onClose,
  declareOutput,
  setOutputTimestamp,
  fail,
  failed,
  panic,
  log,
  currentWatermark,
  processingTime,
} from "./runtime";
export { SQLType, SQLValue, SQLFn, decodeSQLRow, appendSQLValue, sqlFunction } from "./sql";
export { SQLAggregate, SQLTableFn, sqlAggregate, sqlTableFunction } from "./sqlagg";
export { ValueType, Redistribution, ValueState, ListState, MapState, MapEntries, OperatorListState, BroadcastState } from "./state";
