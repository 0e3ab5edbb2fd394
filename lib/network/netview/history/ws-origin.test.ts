import { describe, expect, test } from "bun:test";
import { originAllowed } from "./ws-origin.ts";

describe("originAllowed", () => {
  test("no Origin (a program) is allowed; a browser's Origin must be listed", () => {
    expect(originAllowed(null, [])).toBe(true);
    expect(originAllowed("https://ops.example", [])).toBe(false);
    expect(originAllowed("https://ops.example", ["https://ops.example"])).toBe(true);
    expect(originAllowed("https://evil.example", ["https://ops.example"])).toBe(false);
    expect(originAllowed("https://evil.example", ["*"])).toBe(true);
  });

  test("origins compare as origins: default ports and case, but scheme and port matter", () => {
    expect(originAllowed("https://OPS.example:443", ["https://ops.example"])).toBe(true);
    expect(originAllowed("http://ops.example", ["https://ops.example"])).toBe(false);
    expect(originAllowed("https://ops.example:8443", ["https://ops.example"])).toBe(false);
    expect(originAllowed("null", ["https://ops.example"])).toBe(false);
  });
});
