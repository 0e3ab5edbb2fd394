import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GoldenMonth, goldenMovements, goldenPath, readGolden, writeGolden } from "./golden-month.ts";

const kept: GoldenMonth = {
  scenario: "golden",
  seed: 1,
  period: "2026-10",
  tenants: 10,
  statements: { "cloud-1/p-a": "100.00", "cloud-1/p-b": "20.50", "cloud-1/p-c": "3.00" },
  credit_notes: {},
};

describe("goldenMovements", () => {
  test("nothing moved: no line", () => {
    expect(goldenMovements(kept, structuredClone(kept))).toEqual([]);
  });

  test("each moved, new and gone project is named with the amount it moved by", () => {
    const now = {
      ...kept,
      statements: { "cloud-1/p-a": "99.99", "cloud-1/p-b": "21.75", "cloud-1/p-d": "4.00" },
      credit_notes: { "cloud-1/p-a": "-1.00" },
    };
    expect(goldenMovements(kept, now)).toEqual([
      "statement cloud-1/p-a moved by -0.01 (100.00 → 99.99)",
      "statement cloud-1/p-b moved by +1.25 (20.50 → 21.75)",
      "statement cloud-1/p-c moved by -3.00 (gone, was 3.00)",
      "statement cloud-1/p-d moved by +4.00 (new, 4.00)",
      "credit note cloud-1/p-a moved by -1.00 (new, -1.00)",
    ]);
  });

  test("a month of another scale is not compared", () => {
    expect(goldenMovements(kept, { ...kept, tenants: 3 })).toEqual([
      "the golden month is of 2026-10 with 10 tenants, this run of 2026-10 with 3",
    ]);
  });
});

describe("golden files", () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-golden-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("written sorted, read back equal; none kept reads as null", () => {
    const path = goldenPath(dir, "golden", 1);
    expect(readGolden(path)).toBeNull();
    writeGolden(path, { ...kept, statements: { "cloud-1/z": "1.00", "cloud-1/a": "2.00" } });
    expect(readFileSync(path, "utf8").indexOf("cloud-1/a")).toBeLessThan(
      readFileSync(path, "utf8").indexOf("cloud-1/z"),
    );
    expect(readGolden(path)?.statements).toEqual({ "cloud-1/a": "2.00", "cloud-1/z": "1.00" });
  });
});
