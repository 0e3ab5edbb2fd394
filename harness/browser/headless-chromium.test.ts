import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderInChromium } from "./headless-chromium.ts";

const dir = mkdtempSync(join(tmpdir(), "svc-chromium-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("renderInChromium", () => {
  test("a clean page: no error, and the screenshot is a PNG", async () => {
    const page = join(dir, "clean.html");
    writeFileSync(page, "<!doctype html><html><head><title>t</title></head><body><p>hello</p></body></html>");
    const shot = join(dir, "clean.png");
    expect(await renderInChromium(page, { screenshot: shot })).toEqual({ errors: [] });
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe("PNG");
  }, 60_000);

  test("a console error, an uncaught exception and a failed load are each reported", async () => {
    const page = join(dir, "broken.html");
    writeFileSync(
      page,
      `<!doctype html><html><body><img src="missing.png"><script>console.error("boom"); undefinedFunction();</script></body></html>`,
    );
    const { errors } = await renderInChromium(page);
    expect(errors.some((e) => e === "console.error: boom")).toBe(true);
    expect(
      errors.some((e) => e.startsWith("uncaught: ReferenceError: undefinedFunction is not defined")),
    ).toBe(true);
    expect(errors.some((e) => e.includes("missing.png"))).toBe(true);
    expect(existsSync(join(dir, "broken.png"))).toBe(false);
  }, 60_000);
});
