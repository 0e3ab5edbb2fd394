/**
 * Address text as OVN and OVS read and print it: IPv4, IPv6 (RFC 5952 form, as inet_ntop prints it),
 * Ethernet, and OVS's `ds_put_hex`. Values are bigints so that 128-bit addresses and masks need no
 * special case.
 */

export function parseIpv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^[0-9]{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

export function formatIpv4(value: bigint): string {
  const v = Number(value & 0xffffffffn);
  return `${(v >>> 24) & 255}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

/** inet_pton(AF_INET6): hex groups, one `::`, an optional trailing dotted IPv4. */
export function parseIpv6(text: string): bigint | undefined {
  if (text.length === 0 || !/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  let head = text;
  let tailV4: bigint | undefined;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    if (lastColon < 0) return undefined;
    tailV4 = parseIpv4(text.slice(lastColon + 1));
    if (tailV4 === undefined) return undefined;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    for (const g of part.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const left = groups(halves[0] ?? "");
  const right = halves.length === 2 ? groups(halves[1] ?? "") : [];
  if (left === undefined || right === undefined) return undefined;
  const total = left.length + right.length;
  if (halves.length === 1 ? total !== 8 : total > 7) return undefined;
  const all = [...left, ...new Array<number>(8 - total).fill(0), ...right];
  let value = 0n;
  for (const g of all) value = (value << 16n) | BigInt(g);
  if (tailV4 !== undefined) value = (value & ~0xffffffffn) | tailV4;
  return value;
}

/** inet_ntop(AF_INET6) as glibc prints it: the longest run of zero groups (two or more) as `::`. */
export function formatIpv6(value: bigint): string {
  const words: number[] = [];
  for (let i = 7; i >= 0; i--) words.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  let bestBase = -1;
  let bestLen = 0;
  let curBase = -1;
  let curLen = 0;
  for (let i = 0; i < 8; i++) {
    if (words[i] === 0) {
      if (curBase < 0) {
        curBase = i;
        curLen = 1;
      } else curLen++;
    } else if (curBase >= 0) {
      if (bestBase < 0 || curLen > bestLen) {
        bestBase = curBase;
        bestLen = curLen;
      }
      curBase = -1;
    }
  }
  if (curBase >= 0 && (bestBase < 0 || curLen > bestLen)) {
    bestBase = curBase;
    bestLen = curLen;
  }
  if (bestBase >= 0 && bestLen < 2) bestBase = -1;
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (bestBase >= 0 && i >= bestBase && i < bestBase + bestLen) {
      if (i === bestBase) out += ":";
      continue;
    }
    if (i !== 0) out += ":";
    // An IPv4-compatible or -mapped address ends in dotted form.
    if (i === 6 && bestBase === 0 && (bestLen === 6 || (bestLen === 5 && words[5] === 0xffff))) {
      out += formatIpv4(value & 0xffffffffn);
      break;
    }
    out += (words[i] ?? 0).toString(16);
  }
  if (bestBase >= 0 && bestBase + bestLen === 8) out += ":";
  return out;
}

export function parseMac(text: string): bigint | undefined {
  if (!/^[0-9a-fA-F]{1,2}(:[0-9a-fA-F]{1,2}){5}$/.test(text)) return undefined;
  let value = 0n;
  for (const part of text.split(":")) value = (value << 8n) | BigInt(Number.parseInt(part, 16));
  return value;
}

export function formatMac(value: bigint): string {
  const out: string[] = [];
  for (let i = 5; i >= 0; i--)
    out.push(
      Number((value >> BigInt(i * 8)) & 0xffn)
        .toString(16)
        .padStart(2, "0"),
    );
  return out.join(":");
}

/** OVS `ds_put_hex`: `0x` and the bytes without leading zero bytes, the first one unpadded; `0` for zero. */
export function formatHex(value: bigint): string {
  if (value === 0n) return "0";
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return `0x${hex.replace(/^0/, "")}`;
}

/** A mask of `prefix` leading ones in a `width`-bit field. */
export function prefixMask(prefix: number, width: number): bigint {
  if (prefix <= 0) return 0n;
  const ones = (1n << BigInt(prefix)) - 1n;
  return ones << BigInt(width - prefix);
}

/** The prefix length of a CIDR mask, or undefined when the ones are not leading and contiguous. */
export function cidrBits(mask: bigint, width: number): number | undefined {
  for (let prefix = 0; prefix <= width; prefix++) if (prefixMask(prefix, width) === mask) return prefix;
  return undefined;
}

/** The EUI-64 link-local address of a MAC (in6_generate_lla). */
export function linkLocalOf(mac: bigint): bigint {
  const m = (i: number) => (mac >> BigInt((5 - i) * 8)) & 0xffn;
  const eui =
    ((m(0) ^ 0x02n) << 56n) |
    (m(1) << 48n) |
    (m(2) << 40n) |
    (0xffn << 32n) |
    (0xfen << 24n) |
    (m(3) << 16n) |
    (m(4) << 8n) |
    m(5);
  return (0xfe80n << 112n) | eui;
}
