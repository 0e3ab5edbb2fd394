/**
 * A small seeded generator (sfc32, state seeded from a 128-bit string hash) so that one seed gives one
 * month on every machine and Bun release; `Math.random` is neither seedable nor stable across runs.
 * Each concern draws from its own stream (`new Prng(seed, "faults:duplicates")`), so switching a fault
 * on never shifts the draws that build the month.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream: string) {
    [this.a, this.b, this.c, this.d] = hash128(`${seed}:${stream}`);
    // Discard the first outputs: sfc32's early values correlate with the seed.
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError("pick from an empty list");
    return item;
  }

  /**
   * The draw of `pick(items without items[except])`, without building that list: one month of
   * 100,000 tenants would otherwise copy the tenant list thirty thousand times.
   */
  pickExcept<T>(items: readonly T[], except: number): T {
    const i = Math.floor(this.next() * (items.length - 1));
    const item = items[i >= except ? i + 1 : i];
    if (item === undefined) throw new RangeError("pick from a list of one");
    return item;
  }

  hex(length: number): string {
    const codes = new Array<number>(length);
    for (let at = 0; at < length; at += 8) {
      // A last, partial draw gives its leading digits.
      const digits = Math.min(8, length - at);
      putHex(codes, at, this.nextUint32() >>> (4 * (8 - digits)), digits);
    }
    return String.fromCharCode(...codes);
  }

  /**
   * A version-4 UUID, the form OpenStack services give their resources and messages: the 32 hex
   * digits of four draws, with the version nibble set to 4 and the variant's top bits to 10. Written
   * as one flat string from character codes: a month draws hundreds of thousands, and a string
   * pieced together from slices costs several times the time and memory (decision 246).
   */
  uuid(): string {
    const n0 = this.nextUint32();
    const n1 = this.nextUint32();
    const n2 = this.nextUint32();
    const n3 = this.nextUint32();
    const c = uuidCodes;
    putHex(c, 0, n0, 8);
    putHex(c, 9, n1 >>> 16, 4);
    putHex(c, 15, n1 & 0xfff, 3);
    c[19] = hexCode[((n2 >>> 28) & 0x3) | 0x8] as number;
    putHex(c, 20, (n2 >>> 16) & 0xfff, 3);
    putHex(c, 24, n2 & 0xffff, 4);
    putHex(c, 28, n3, 8);
    return String.fromCharCode.apply(null, c);
  }
}

const hexCode: readonly number[] = Array.from({ length: 16 }, (_, i) => i.toString(16).charCodeAt(0));

/** Character codes of a UUID being written; the dashes and the version digit never change. */
const uuidCodes: number[] = Array.from("00000000-0000-4000-8000-000000000000", (c) => c.charCodeAt(0));

/** The low 4×`digits` bits of `n` as `digits` hex digits, into `codes` from `at`. */
function putHex(codes: number[], at: number, n: number, digits: number): void {
  for (let i = 0; i < digits; i++) codes[at + i] = hexCode[(n >>> (4 * (digits - 1 - i))) & 0xf] as number;
}

/** cyrb128: four 32-bit words from a string, enough to seed sfc32 without a crypto dependency. */
function hash128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}
