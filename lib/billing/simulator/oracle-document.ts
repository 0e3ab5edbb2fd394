import { ValidationError } from "../../foundation/errors/svc-error.ts";
import type { JsonObject, JsonValue } from "../../foundation/json/json-value.ts";
import { isRfc3339 } from "../../foundation/time/instant.ts";
import { type FaultSwitch, isFaultSwitch } from "./fault-switch.ts";
import {
  type Oracle,
  type OracleCount,
  type OracleInterval,
  type OracleResource,
  type OracleTraffic,
  oracleFormat,
} from "./oracle.ts";

/** The members of `oracle.json`, in the order of the spec: what it is written in and all it may hold. */
export const oracleMembers = [
  "format",
  "cloud",
  "seed",
  "period_from",
  "period_to",
  "resources",
  "counts",
  "faults",
  "traffic",
] as const;

/** `oracle.json`: members in the order of the spec, two-space indented, one trailing newline. */
export function encodeOracle(oracle: Oracle): string {
  const parts: string[] = [];
  const encoder = new OracleEncoder((text) => parts.push(text), oracle);
  const lists = [
    ["resources", oracle.resources],
    ["counts", oracle.counts],
    ["faults", oracle.faults],
    ["traffic", oracle.traffic],
  ] as const;
  for (const [name, items] of lists) {
    encoder.open(name);
    for (const item of items) encoder.item(item);
  }
  encoder.end();
  return parts.join("");
}

type OracleList = "resources" | "counts" | "faults" | "traffic";

/**
 * Writes `oracle.json` piece by piece, exactly as `JSON.stringify(oracle, null, 2)` lays it out, so
 * the streaming file mode never holds the document (decision 245). The lists must be opened in the
 * document's order, each after the previous one's items.
 */
export class OracleEncoder {
  private current: OracleList | null = null;
  private items = 0;
  private readonly order: OracleList[] = ["resources", "counts", "faults", "traffic"];

  constructor(
    private readonly write: (text: string) => void,
    head: Pick<Oracle, "format" | "cloud" | "seed" | "period_from" | "period_to">,
  ) {
    const scalars = [
      ["format", head.format],
      ["cloud", head.cloud],
      ["seed", head.seed],
      ["period_from", head.period_from],
      ["period_to", head.period_to],
    ] as const;
    write(`{${scalars.map(([name, value]) => `\n  "${name}": ${JSON.stringify(value)}`).join(",")}`);
  }

  open(list: OracleList): void {
    if (this.order[0] !== list) throw new RangeError(`the oracle's ${list} out of order`);
    this.order.shift();
    this.close();
    this.current = list;
    this.items = 0;
    this.write(`,\n  "${list}": [`);
  }

  item(value: OracleResource | OracleCount | FaultSwitch | OracleTraffic): void {
    const text = JSON.stringify(value, null, 2).replaceAll("\n", "\n    ");
    this.write(`${this.items === 0 ? "" : ","}\n    ${text}`);
    this.items += 1;
  }

  end(): void {
    if (this.order.length > 0) throw new RangeError(`the oracle's ${this.order.join(", ")} never opened`);
    this.close();
    this.write("\n}\n");
  }

  private close(): void {
    if (this.current !== null) this.write(this.items === 0 ? "]" : "\n  ]");
    this.current = null;
  }
}

/**
 * Reads `oracle.json`, refusing a document of another format and any member the format does not name,
 * at every level: a reader that guessed would compare a month against the wrong statement of truth.
 */
export function readOracle(text: string): Oracle {
  let doc: JsonValue;
  try {
    doc = JSON.parse(text) as JsonValue;
  } catch (cause) {
    throw new ValidationError("the oracle is not JSON", [], { cause });
  }
  const root = object(doc, "oracle");
  if (root.format !== oracleFormat) {
    throw new ValidationError(
      `the oracle is format ${JSON.stringify(root.format ?? null)}; this simulator reads format ${oracleFormat} only: generate the month again`,
    );
  }
  members(root, "oracle", oracleMembers);
  return {
    format: oracleFormat,
    cloud: string(root.cloud, "cloud"),
    seed: integer(root.seed, "seed"),
    period_from: instant(root.period_from, "period_from"),
    period_to: instant(root.period_to, "period_to"),
    resources: array(root.resources, "resources").map((r, i) => resource(r, `resources.${i}`)),
    counts: array(root.counts, "counts").map((c, i) => count(c, `counts.${i}`)),
    faults: faults(root.faults, "faults"),
    traffic: array(root.traffic, "traffic").map((t, i) => traffic(t, `traffic.${i}`)),
  };
}

function resource(value: JsonValue, at: string): OracleResource {
  const o = object(value, at);
  members(o, at, ["resource_type", "resource_id", "workload", "intervals", "faults"]);
  return {
    resource_type: string(o.resource_type, `${at}.resource_type`),
    resource_id: string(o.resource_id, `${at}.resource_id`),
    workload: string(o.workload, `${at}.workload`),
    intervals: array(o.intervals, `${at}.intervals`).map((v, i) => interval(v, `${at}.intervals.${i}`)),
    faults: faults(o.faults, `${at}.faults`),
  };
}

function interval(value: JsonValue, at: string): OracleInterval {
  const o = object(value, at);
  members(o, at, ["from", "to", "state", "project_id", "size"]);
  return {
    from: instant(o.from, `${at}.from`),
    to: instant(o.to, `${at}.to`),
    state: string(o.state, `${at}.state`),
    project_id: string(o.project_id, `${at}.project_id`),
    size: object(o.size ?? null, `${at}.size`),
  };
}

function count(value: JsonValue, at: string): OracleCount {
  const o = object(value, at);
  members(o, at, ["project_id", "event_type", "count"]);
  return {
    project_id: string(o.project_id, `${at}.project_id`),
    event_type: string(o.event_type, `${at}.event_type`),
    count: integer(o.count, `${at}.count`),
  };
}

function traffic(value: JsonValue, at: string): OracleTraffic {
  const o = object(value, at);
  members(o, at, ["resource_id", "from", "to", "egress_bytes", "ingress_bytes"]);
  return {
    resource_id: string(o.resource_id, `${at}.resource_id`),
    from: instant(o.from, `${at}.from`),
    to: instant(o.to, `${at}.to`),
    egress_bytes: integer(o.egress_bytes, `${at}.egress_bytes`),
    ingress_bytes: integer(o.ingress_bytes, `${at}.ingress_bytes`),
  };
}

function members(o: JsonObject, at: string, names: readonly string[]): void {
  const unknown = Object.keys(o).filter((k) => !names.includes(k));
  if (unknown.length > 0)
    throw new ValidationError(`the oracle has unknown members at ${at}: ${unknown.join(", ")}`);
  const missing = names.filter((n) => !Object.hasOwn(o, n));
  if (missing.length > 0)
    throw new ValidationError(`the oracle lacks members at ${at}: ${missing.join(", ")}`);
}

function object(value: JsonValue | undefined, at: string): JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ValidationError(`the oracle's ${at} is not an object`);
  }
  return value;
}

function array(value: JsonValue | undefined, at: string): JsonValue[] {
  if (!Array.isArray(value)) throw new ValidationError(`the oracle's ${at} is not an array`);
  return value;
}

function string(value: JsonValue | undefined, at: string): string {
  if (typeof value !== "string") throw new ValidationError(`the oracle's ${at} is not a string`);
  return value;
}

function integer(value: JsonValue | undefined, at: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new ValidationError(`the oracle's ${at} is not an integer`);
  }
  return value;
}

function instant(value: JsonValue | undefined, at: string): string {
  const s = string(value, at);
  if (!isRfc3339(s)) throw new ValidationError(`the oracle's ${at} is not an RFC 3339 instant`);
  return s;
}

function faults(value: JsonValue | undefined, at: string): FaultSwitch[] {
  return array(value, at).map((f, i) => {
    if (typeof f !== "string" || !isFaultSwitch(f))
      throw new ValidationError(`the oracle's ${at}.${i} is not a fault switch`);
    return f;
  });
}
