import { expect, test } from "bun:test";
import { ValidationError } from "../../foundation/errors/svc-error.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import { generateMonth } from "./generate-month.ts";
import { monthStream } from "./month-stream.ts";
import { buildOracle } from "./oracle.ts";
import { encodeOracle, oracleMembers, readOracle } from "./oracle-document.ts";

const month = generateMonth({ seed: 3, period: parsePeriod("2026-10"), cloud: "c", scale: { tenants: 2 } });
const faults = ["duplicates", "held-back"] as const;
const oracle = buildOracle(month, [...faults], monthStream(month, [...faults]).marks);
const text = encodeOracle(oracle);

test("format 6 with the members, sort orders and clipped half-open intervals of the spec", () => {
  const doc = JSON.parse(text);
  expect(Object.keys(doc)).toEqual([...oracleMembers]);
  expect(doc.format).toBe(6);
  expect(doc.faults).toEqual(["duplicates", "held-back"]);
  const keys = oracle.resources.map((r) => `${r.resource_type} ${r.resource_id}`);
  expect(keys).toEqual([...keys].sort());
  for (const r of oracle.resources) {
    expect(Object.keys(r)).toEqual(["resource_type", "resource_id", "workload", "intervals", "faults"]);
    for (const [i, iv] of r.intervals.entries()) {
      expect(Object.keys(iv)).toEqual(["from", "to", "state", "project_id", "size"]);
      expect(iv.from < iv.to).toBe(true);
      expect(iv.from >= oracle.period_from).toBe(true);
      expect(iv.to <= oracle.period_to).toBe(true);
      if (i > 0) expect(iv.from >= (r.intervals[i - 1]?.to ?? "")).toBe(true);
    }
  }
  const counts = oracle.counts.map((c) => `${c.project_id} ${c.event_type}`);
  expect(counts).toEqual([...counts].sort());
  const traffic = oracle.traffic.map((t) => `${t.resource_id} ${t.from}`);
  expect(traffic).toEqual([...traffic].sort());
  expect(oracle.traffic.filter((t) => !Number.isSafeInteger(t.egress_bytes) || t.egress_bytes < 0)).toEqual(
    [],
  );
});

test("the reader reads back what was written", () => {
  expect(readOracle(text)).toEqual(oracle);
});

test("the reader refuses another format and unknown or missing members at any level", () => {
  const doc = () => JSON.parse(text);
  const refusal = (d: unknown) => {
    try {
      readOracle(JSON.stringify(d));
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      return (err as Error).message;
    }
    throw new Error("accepted");
  };
  expect(refusal({ ...doc(), format: 3 })).toContain("format 3");
  expect(refusal({ ...doc(), extra: 1 })).toContain("unknown members at oracle: extra");
  const nested = doc();
  nested.resources[0].intervals[0].note = "x";
  expect(refusal(nested)).toContain("resources.0.intervals.0");
  const missing = doc();
  delete missing.traffic;
  expect(refusal(missing)).toContain("lacks members");
  const badFault = doc();
  badFault.faults = ["gremlins"];
  expect(refusal(badFault)).toContain("not a fault switch");
  expect(() => readOracle("{")).toThrow(ValidationError);
});

test("the streamed document is JSON.stringify's two-space layout, empty lists included", () => {
  expect(encodeOracle(oracle)).toBe(`${JSON.stringify(oracle, null, 2)}\n`);
  const empty = { ...oracle, resources: [], counts: [], faults: [], traffic: [] };
  expect(encodeOracle(empty)).toBe(`${JSON.stringify(empty, null, 2)}\n`);
});
