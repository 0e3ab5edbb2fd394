import { describe, expect, test } from "bun:test";
import { Lexer, nextToken, OvnSyntaxError, type Token } from "./lexer.ts";

function tokens(input: string): Token[] {
  const out: Token[] = [];
  const lexer = new Lexer(input);
  while (!lexer.atEnd()) {
    out.push(lexer.token);
    lexer.get();
  }
  return out;
}

const shape = (t: Token) =>
  t.type === "int"
    ? `${t.format}:${t.value.toString(16)}${t.mask === undefined ? "" : `/${t.mask.toString(16)}`}`
    : t.type === "punct"
      ? t.p
      : `${t.type}:${"s" in t ? t.s : ""}`;

describe("lexer", () => {
  test("integers in every form, with masks and prefixes", () => {
    expect(tokens("80 0x1f 10.0.0.0/8 fd00::1/64 00:00:00:00:10:01 0/0x3").map(shape)).toEqual([
      "decimal:50",
      "hex:1f",
      "ipv4:a000000/ff000000",
      "ipv6:fd000000000000000000000000000000/ffffffffffffffff0000000000000000",
      "ethernet:1001",
      "hex:0/3",
    ]);
  });

  test("an address followed by a port is three tokens; `..` ends a number", () => {
    expect(tokens("10.0.0.1:80").map(shape)).toEqual(["ipv4:a000001", ":", "decimal:50"]);
    expect(tokens("reg0[0..15]").map(shape)).toEqual(["id:reg0", "[", "decimal:0", "..", "decimal:f", "]"]);
  });

  test("identifiers, strings, sets, groups and operators; comments are skipped", () => {
    expect(tokens('inport == "p1" /* c */ && $as1 || @pg != { } <-> -- ; ip.ttl--').map(shape)).toEqual([
      "id:inport",
      "==",
      "string:p1",
      "&&",
      "macro:as1",
      "||",
      "port_group:pg",
      "!=",
      "{",
      "}",
      "<->",
      "--",
      ";",
      "id:ip.ttl",
      "--",
    ]);
  });

  test("hex-looking identifiers are identifiers unless a colon follows", () => {
    expect(tokens("eth.dst dead:beef::1").map(shape)).toEqual([
      "id:eth.dst",
      "ipv6:deadbeef000000000000000000000001",
    ]);
  });

  test("errors carry OVN's wording", () => {
    expect(() => nextToken("012", 0)).toThrow("Decimal constants must not have leading zeros.");
    expect(() => nextToken("a & b", 2)).toThrow("`&' is only valid as part of `&&'.");
    expect(() => nextToken('"open', 0)).toThrow("Input ends inside quoted string.");
    expect(() => nextToken("10.0.0.1/0x0", 0)).toThrow(OvnSyntaxError);
  });
});
