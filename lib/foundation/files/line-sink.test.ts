import { afterEach, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lineSink, writeLines } from "./line-sink.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempPath(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "svc-line-sink-"));
  dirs.push(d);
  return join(d, "x.jsonl");
}

test("lines are written one per line", async () => {
  const path = await tempPath();
  await writeLines(path, ["a", "b"]);
  expect(await Bun.file(path).text()).toBe("a\nb\n");
});

test("lines across chunks, a line larger than a chunk, non-ASCII text and copied bytes and text in pieces keep their order", async () => {
  const path = await tempPath();
  const lines = Array.from({ length: 1200 }, (_, i) => `${i}:${"é€😀".repeat(i % 97)}${"x".repeat(i * 3)}`);
  const huge = `{"blob":"${"y".repeat(3 << 20)}"}`;
  const sink = lineSink(path);
  for (const line of lines.slice(0, 600)) sink.line(line);
  sink.line(huge);
  sink.line(new TextEncoder().encode("as bytes"));
  sink.line(new TextEncoder().encode("z".repeat(2 << 20)));
  sink.bytes(new TextEncoder().encode("copied\n"));
  sink.text("in ");
  sink.text("pieces\n");
  for (const line of lines.slice(600)) sink.line(line);
  await sink.end();
  await sink.end();
  const expected = [
    ...lines.slice(0, 600),
    huge,
    "as bytes",
    "z".repeat(2 << 20),
    "copied",
    "in pieces",
    ...lines.slice(600),
  ];
  expect(await Bun.file(path).text()).toBe(`${expected.join("\n")}\n`);
});

test("an existing file is truncated", async () => {
  const path = await tempPath();
  await Bun.write(path, "old old old\n");
  await writeLines(path, ["new"]);
  expect(await Bun.file(path).text()).toBe("new\n");
});
