import { describe, expect, test } from "bun:test";
import { stageProgress } from "./stage-progress.ts";

function sink(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe("stageProgress", () => {
  test("not at a terminal: only the report lines, plain", () => {
    const out = sink(false);
    const progress = stageProgress(out);
    progress.print("scenario golden");
    progress.begin("meter");
    progress.update("engine run");
    progress.end("  meter     run r (1.0 s)");
    expect(out.written).toEqual(["scenario golden\n", "  meter     run r (1.0 s)\n"]);
  });

  test("at a terminal: a live line for the stage, cleared before its report line", () => {
    const out = sink(true);
    const progress = stageProgress(out);
    progress.begin("meter");
    progress.end("  meter     run r (1.0 s)");
    expect(out.written[0]?.startsWith("\r\x1b[2K| meter 0.")).toBe(true);
    expect(out.written.slice(-2)).toEqual(["\r\x1b[2K", "  meter     run r (1.0 s)\n"]);
  });
});
