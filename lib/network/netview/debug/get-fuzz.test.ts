// Issue 16's acceptance: every GET route of the OpenAPI document, with malformed path and query
// values, answers without a 5xx (a caller's mistake is a 4xx, never a server error).
import { expect, test } from "bun:test";
import fc from "fast-check";
import { startDebugFixture } from "../../../../harness/netview/debug-fixture.ts";
import { fixtureForFile } from "../../../../harness/netview/test-support.ts";

const fx = fixtureForFile(startDebugFixture);

const junk = [
  "",
  "%00",
  "..%2F..%2Fetc",
  "00000000-0000-0000-0000-000000000000",
  "zz",
  "-1",
  "99999999999999999999",
  "%E2%82",
  "a%20b",
  "{}",
  "<script>",
];
const queryJunk = [
  "limit=-5",
  "limit=abc",
  "q=%00",
  "q=",
  "microflow=((",
  "inport=%FF",
  "ip_dst=1.2.3",
  "ct=x",
  "lb_dst=[",
  "severity=odd",
  "offset=1e9",
  "datapath=",
  "x=1&x=2",
];

test("no GET route answers 5xx to malformed path or query values", async () => {
  const doc = (await fx().get("/api/v1/openapi.json")).body as {
    paths: Record<string, Record<string, unknown>>;
  };
  const paths = Object.entries(doc.paths)
    .filter(([path, ops]) => ops.get !== undefined && !path.includes("/ws") && !path.includes("/docs"))
    .map(([path]) => path);
  expect(paths.length).toBeGreaterThan(20);
  const failures: string[] = [];
  const probe = async (url: string) => {
    const res = await fx().app.handle(new Request(`http://localhost${url}`));
    await res.arrayBuffer();
    if (res.status >= 500 && res.status !== 503) failures.push(`${res.status} ${url}`);
  };
  for (const path of paths) {
    for (const value of junk) await probe(path.replace(/\{[^}]+\}/g, value === "" ? "x" : value));
    for (const q of queryJunk) await probe(`${path.replace(/\{[^}]+\}/g, "x")}?${q}`);
  }
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...paths), fc.string(), fc.string(), async (path, a, b) => {
      await probe(
        `${path.replace(/\{[^}]+\}/g, encodeURIComponent(a) || "x")}?${encodeURIComponent(b)}=${encodeURIComponent(a)}`,
      );
      return true;
    }),
    { numRuns: 300 },
  );
  expect(failures).toEqual([]);
}, 120_000);
