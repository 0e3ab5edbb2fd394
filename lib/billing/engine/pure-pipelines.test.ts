import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importsOf } from "../../../harness/tree/import-graph.ts";

// The pure pipelines of a run and of a correction (price-month.ts, correct-month.ts) are run with no
// database at all in correct-month.test.ts; this checks they could not reach one if they tried.
describe("the pure pipelines reach no database (decision 451)", () => {
  const root = join(import.meta.dir, "../../..");
  /** Packages and modules that do I/O: none may be loaded by the pipelines, even unused. */
  const io = /^(postgres|drizzle-orm(\/.*)?|node:(fs|net|http|https|child_process)(\/.*)?)$/;
  const packageImport = /^\s*import\s+(?!type\b)[^;]*?from\s+"([^".][^"]*)"/gm;

  /** The files a module loads at run time (type-only imports load nothing), itself included. */
  function loaded(start: string): Set<string> {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const i of importsOf(file, readFileSync(join(root, file), "utf8"))) {
        if (!i.typeOnly) visit(join(file, "..", i.spec));
      }
    };
    visit(start);
    return seen;
  }

  test("price-month.ts and correct-month.ts load no store, reader or driver", () => {
    const files = new Set([
      ...loaded("lib/billing/engine/price-month.ts"),
      ...loaded("lib/billing/engine/correct-month.ts"),
    ]);
    expect(files.size).toBeGreaterThan(10);
    const reaching = [...files].filter(
      (f) =>
        f.startsWith("lib/billing/engine/store/") ||
        f === "lib/billing/engine/month-reader.ts" ||
        f === "lib/billing/engine/reporting-source.ts" ||
        f.startsWith("lib/foundation/postgres/"),
    );
    const packages = [...files].flatMap((f) =>
      [...readFileSync(join(root, f), "utf8").matchAll(packageImport)]
        .map((m) => m[1] as string)
        .filter((spec) => io.test(spec))
        .map((spec) => `${f} imports ${spec}`),
    );
    expect({ reaching, packages }).toEqual({ reaching: [], packages: [] });
  });
});
