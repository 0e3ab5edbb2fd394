import { expect, test } from "bun:test";
import { progressLine } from "./progress-line.ts";

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

test("on a terminal the line is redrawn in place and cleared at the end", () => {
  const s = stream(true);
  const p = progressLine(s);
  p.update("generating");
  p.done();
  expect(s.written[0]?.startsWith("\r\x1b[2K")).toBe(true);
  expect(s.written[0]).toMatch(/\d+\.\ds generating$/);
  expect(s.written.at(-1)).toBe("\r\x1b[2K");
});

test("in a pipe or a CI log nothing is written", () => {
  const s = stream(false);
  const p = progressLine(s);
  p.update("generating");
  p.done();
  expect(s.written).toEqual([]);
});
