import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { anchorsOf, citationsIn, slugOf } from "./doc-anchors.ts";
import { filesUnder } from "./tree-files.ts";

const root = join(import.meta.dir, "../..");

/** The files that may cite: code, migrations, the docs and the README (never the test's own examples). */
function citingFiles(): string[] {
  const dirs = ["lib", "harness", "cmd", "bench", "scenarios", "scripts", "fixtures", "drizzle", "docs"];
  return [...filesUnder(root, dirs, /\.(ts|sql|md)$/), "README.md"].filter(
    (f) => !f.startsWith("harness/tree/doc-anchors"),
  );
}

describe("citations of our docs (decision 60)", () => {
  test("every docs/<file>.md#<anchor> names a heading that exists", () => {
    const anchors = new Map<string, Set<string>>();
    const broken: string[] = [];
    for (const file of citingFiles()) {
      for (const c of citationsIn(file, readFileSync(join(root, file), "utf8"))) {
        if (!anchors.has(c.doc))
          anchors.set(
            c.doc,
            existsSync(join(root, c.doc)) ? anchorsOf(readFileSync(join(root, c.doc), "utf8")) : new Set(),
          );
        if (!anchors.get(c.doc)?.has(c.anchor)) broken.push(`${c.file}:${c.line} ${c.doc}#${c.anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test("nothing cites the spec, which is not part of the repository", () => {
    const cites = citingFiles().flatMap((file) =>
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .flatMap((line, i) => (/\bspec [123]\b/.test(line) ? [`${file}:${i + 1}`] : [])),
    );
    expect(cites).toEqual([]);
  });
});

describe("anchorsOf", () => {
  test("anchors headings as GitHub does, repeats numbered, fenced code skipped", () => {
    const doc = [
      "# The metering engine",
      "## Credit notes",
      "### `export --run id --format json|csv`",
      "## HTTP routes (`SVC_OSC_HTTP_PORT`, no credential)",
      "```sh",
      "# not a heading",
      "```",
      "## Credit notes",
      "## [Linked](other.md) heading",
    ].join("\n");
    expect([...anchorsOf(doc)]).toEqual([
      "the-metering-engine",
      "credit-notes",
      "export---run-id---format-jsoncsv",
      "http-routes-svc_osc_http_port-no-credential",
      "credit-notes-1",
      "linked-heading",
    ]);
    expect(slugOf("Rounding (decision 401)")).toBe("rounding-decision-401");
  });

  test("citationsIn finds each citation with its line", () => {
    expect(
      citationsIn("a.ts", "x\n// see docs/engine.md#credit-notes and docs/decisions/engine.md#x"),
    ).toEqual([
      { file: "a.ts", line: 2, doc: "docs/engine.md", anchor: "credit-notes" },
      { file: "a.ts", line: 2, doc: "docs/decisions/engine.md", anchor: "x" },
    ]);
  });
});
