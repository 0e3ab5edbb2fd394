import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  cidrBits,
  formatHex,
  formatIpv4,
  formatIpv6,
  formatMac,
  linkLocalOf,
  parseIpv4,
  parseIpv6,
  parseMac,
  prefixMask,
} from "./addresses.ts";

describe("addresses", () => {
  test("IPv6 prints as inet_ntop does", () => {
    const cases: [string, string][] = [
      ["fd00:0:0:0:0:0:0:11", "fd00::11"],
      ["0:0:0:0:0:0:0:0", "::"],
      ["0:0:0:0:0:0:0:1", "::1"],
      ["fe80:0:0:0:200:ff:fe00:ff01", "fe80::200:ff:fe00:ff01"],
      ["ff02:0:0:0:0:1:ff00:1", "ff02::1:ff00:1"],
      ["1:0:0:1:0:0:0:1", "1:0:0:1::1"],
      ["1:0:1:0:1:0:1:0", "1:0:1:0:1:0:1:0"],
      ["0:0:0:0:0:ffff:a00:1", "::ffff:10.0.0.1"],
    ];
    for (const [input, printed] of cases) expect(formatIpv6(parseIpv6(input) ?? -1n)).toBe(printed);
  });

  test("IPv6 parsing refuses what inet_pton refuses", () => {
    for (const bad of ["", ":::", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "g::1", "1.2.3.4"])
      expect(parseIpv6(bad)).toBeUndefined();
    expect(parseIpv6("::ffff:10.0.0.1")).toBe((0xffffn << 32n) | 0x0a000001n);
  });

  test("IPv4, MAC and IPv6 round-trip", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }), (v) => parseIpv4(formatIpv4(v)) === v),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 48n) - 1n }), (v) => parseMac(formatMac(v)) === v),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (v) => parseIpv6(formatIpv6(v)) === v),
    );
  });

  test("hex as OVS's ds_put_hex writes it", () => {
    expect([0n, 1n, 0x10n, 0x100n, 0xabcdn].map(formatHex)).toEqual(["0", "0x1", "0x10", "0x100", "0xabcd"]);
  });

  test("prefix masks and CIDR lengths", () => {
    expect(prefixMask(24, 32)).toBe(0xffffff00n);
    expect(cidrBits(0xffffff00n, 32)).toBe(24);
    expect(cidrBits(0xff00ff00n, 32)).toBeUndefined();
  });

  test("EUI-64 link-local address", () => {
    expect(formatIpv6(linkLocalOf(parseMac("00:00:00:00:ff:01") ?? 0n))).toBe("fe80::200:ff:fe00:ff01");
  });
});
