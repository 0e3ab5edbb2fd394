import { afterEach, expect, test } from "bun:test";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clearMonthFiles, StaleFilesError } from "./month-files.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "svc-sim-files-"));
  dirs.push(d);
  return d;
}

test("the four files of an earlier run are removed; other files stay", async () => {
  const dir = await tempDir();
  for (const name of ["notifications.jsonl", "events.jsonl", "oracle.json", "held-back.jsonl", "notes.txt"]) {
    await writeFile(join(dir, name), "old");
  }
  await clearMonthFiles(dir);
  expect(await readdir(dir)).toEqual(["notes.txt"]);
});

test("a missing directory is created", async () => {
  const dir = join(await tempDir(), "a", "b");
  await clearMonthFiles(dir);
  expect(await readdir(dir)).toEqual([]);
});

test("paths that cannot be removed end the run, naming every one", async () => {
  const dir = await tempDir();
  for (const name of ["events.jsonl", "held-back.jsonl"]) {
    await mkdir(join(dir, name));
    await writeFile(join(dir, name, "keep"), "x");
  }
  await writeFile(join(dir, "oracle.json"), "old");
  const err = await clearMonthFiles(dir).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(StaleFilesError);
  expect((err as StaleFilesError).paths).toEqual([join(dir, "events.jsonl"), join(dir, "held-back.jsonl")]);
  expect((err as Error).message).toContain(join(dir, "held-back.jsonl"));
});
