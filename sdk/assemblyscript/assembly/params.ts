// The operator's parameters, decoded from floe_open's parameter block.

import { fail } from "./runtime";

/**
 * The job's parameters (the spec's `params:` and `--set` values) and the
 * host's `floe.*` entries, as handed to floe_open.
 */
@final
export class Params {
  private m: Map<string, string> = new Map();

  /** Whether the parameter is set. */
  has(name: string): bool {
    return this.m.has(name);
  }

  /** The parameter's value, or orElse when absent. */
  get(name: string, orElse: string = ""): string {
    return this.m.has(name) ? this.m.get(name) : orElse;
  }

  /**
   * The parameter as an integer, or orElse when absent. A value that is not
   * a decimal integer fails the call (see `fail`) and returns orElse.
   */
  int(name: string, orElse: i64 = 0): i64 {
    if (!this.m.has(name)) return orElse;
    const s = this.m.get(name);
    const v = parseInteger(s);
    if (v.ok) return v.value;
    fail("parameter " + name + ": \"" + s + "\" is not an integer");
    return orElse;
  }

  /** Every parameter's name. */
  names(): string[] {
    return this.m.keys();
  }

  /** @internal */
  set(name: string, value: string): void {
    this.m.set(name, value);
  }
}

class Parsed {
  ok: bool = false;
  value: i64 = 0;
}

function parseInteger(s: string): Parsed {
  const r = new Parsed();
  let i = 0;
  let neg = false;
  if (s.length > 0 && (s.charCodeAt(0) == 0x2d || s.charCodeAt(0) == 0x2b)) {
    neg = s.charCodeAt(0) == 0x2d;
    i = 1;
  }
  if (i >= s.length) return r;
  let v: u64 = 0;
  for (; i < s.length; i++) {
    const d = <u32>s.charCodeAt(i) - 0x30;
    if (d > 9) return r;
    v = v * 10 + d;
    if (v > <u64>i64.MAX_VALUE + (neg ? 1 : 0)) return r;
  }
  r.ok = true;
  r.value = neg ? <i64>(0 - v) : <i64>v;
  return r;
}
