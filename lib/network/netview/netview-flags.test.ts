import { expect, test } from "bun:test";
import { parseListen, parseOrigins } from "./netview-flags.ts";

test("--listen: host and port, bracketed IPv6, every interface", () => {
  expect(parseListen("127.0.0.1:8080")).toEqual({ hostname: "127.0.0.1", port: 8080 });
  expect(parseListen("[::1]:0")).toEqual({ hostname: "::1", port: 0 });
  expect(parseListen(":9000")).toEqual({ hostname: "0.0.0.0", port: 9000 });
  expect(() => parseListen("h:70000")).toThrow('takes HOST:PORT, got "h:70000"');
});

test("--ws-allowed-origins: origins or *, every bad one named", () => {
  expect(parseOrigins(" https://a.example ,*,")).toEqual(["https://a.example", "*"]);
  expect(() => parseOrigins("nope,https://ok.example,also bad")).toThrow('"nope", "also bad": not an origin');
});
