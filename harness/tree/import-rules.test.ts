import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { importGraph, importsOf } from "./import-graph.ts";
import { areaOf, importViolations, layers } from "./import-rules.ts";
import { filesUnder } from "./tree-files.ts";

const root = join(import.meta.dir, "../..");

describe("the tree's imports (decision 13)", () => {
  test("no upward import, no import across the two sides, no circle", () => {
    const files = filesUnder(root, Object.keys(layers), /\.ts$/);
    expect(files.length).toBeGreaterThan(500);
    expect(importViolations(importGraph(root, files))).toEqual([]);
  });
});

describe("importViolations", () => {
  const edge = (from: string, to: string) => ({ from, to, typeOnly: false });

  test("names an upward import, and lets a test use the harness", () => {
    expect(
      importViolations([
        edge("lib/billing/engine/run.ts", "harness/process/free-port.ts"),
        edge("harness/scenario/cli.ts", "scenarios/index.ts"),
        edge("lib/billing/engine/run.test.ts", "harness/process/free-port.ts"),
        edge("lib/billing/engine/run.test.ts", "cmd/engine.ts"),
      ]).map((v) => v.text),
    ).toEqual([
      "lib/billing/engine/run.ts -> harness/process/free-port.ts: lib may not import harness",
      "harness/scenario/cli.ts -> scenarios/index.ts: harness may not import scenarios",
      "lib/billing/engine/run.test.ts -> cmd/engine.ts: lib may not import cmd",
    ]);
  });

  test("keeps the two sides apart and the foundation below both", () => {
    expect(
      importViolations([
        edge("lib/billing/engine/a.ts", "lib/network/ovsdb/b.ts"),
        edge("lib/network/netview/a.test.ts", "lib/billing/events/event.ts"),
        edge("lib/foundation/json/a.ts", "lib/billing/events/event.ts"),
        edge("lib/billing/engine/a.ts", "lib/foundation/json/b.ts"),
        edge("lib/stray/a.ts", "lib/foundation/json/b.ts"),
        edge("lib/foundation/cli/a.ts", "package.json"),
      ]).map((v) => `${v.rule}: ${v.text}`),
    ).toEqual([
      "side: lib/billing/engine/a.ts -> lib/network/ovsdb/b.ts: billing may not import network",
      "side: lib/network/netview/a.test.ts -> lib/billing/events/event.ts: network may not import billing",
      "side: lib/foundation/json/a.ts -> lib/billing/events/event.ts: foundation may not import billing",
      "unplaced: lib/stray/a.ts: lib/ holds only foundation, billing, network",
    ]);
  });

  test("finds a circle of files, and one of areas closed by a type import", () => {
    const found = importViolations([
      edge("lib/billing/compare/a.ts", "lib/billing/compare/b.ts"),
      edge("lib/billing/compare/b.ts", "lib/billing/compare/a.ts"),
      edge("lib/billing/engine/x.ts", "lib/billing/statements/y.ts"),
      { from: "lib/billing/statements/z.ts", to: "lib/billing/engine/w.ts", typeOnly: true },
    ]);
    expect(found.map((v) => `${v.rule}: ${v.text}`)).toEqual([
      "file circle: lib/billing/compare/a.ts -> lib/billing/compare/b.ts",
      "area circle: lib/billing/engine -> lib/billing/statements",
    ]);
  });

  test("areas are folders under a side, or under the harness", () => {
    expect(areaOf("lib/billing/reporting/ingest/ingest-batch.ts")).toBe("lib/billing/reporting");
    expect(areaOf("harness/scenario/checks.ts")).toBe("harness/scenario");
    expect(areaOf("harness/test-services.ts")).toBe("harness");
    expect(areaOf("cmd/engine.ts")).toBe("cmd");
  });
});

describe("importsOf", () => {
  test("reads imports, re-exports and literal dynamic imports, and which are for types only", () => {
    const source = [
      'import { a } from "./a.ts";',
      'import type { B } from "../b.ts";',
      'import { type C, type D } from "./c.ts";',
      'export { e } from "./e.ts";',
      'const f = await import("./f.ts");',
      'import pino from "pino";',
      'const text = "import { x } from \\"./not-an-import.ts\\"";',
    ].join("\n");
    expect(importsOf("x.ts", source)).toEqual([
      { spec: "./a.ts", typeOnly: false },
      { spec: "../b.ts", typeOnly: true },
      { spec: "./c.ts", typeOnly: true },
      { spec: "./e.ts", typeOnly: false },
      { spec: "./f.ts", typeOnly: false },
    ]);
  });
});
