/**
 * PostgreSQL's `hashtextextended(text, seed)` for text under a deterministic collation: Bob Jenkins'
 * lookup3 over the text's UTF-8 bytes with a 64-bit seed (`hash_bytes_extended` in the server's
 * src/common/hashfn.c, little-endian), as the signed `bigint` the server returns. The result is part
 * of the server's on-disk format (hash partitioning depends on it), so it does not change between
 * releases. Computed in the process, a key's lock id costs the database nothing (decision 155).
 */
export function hashTextExtended(text: string, seed: bigint): bigint {
  const k = encoder.encode(text);
  let length = k.length;
  let a = (0x9e3779b9 + length + 3923095) | 0;
  let b = a;
  let c = a;
  const mix = () => {
    a = (a - c) | 0;
    a ^= rot(c, 4);
    c = (c + b) | 0;
    b = (b - a) | 0;
    b ^= rot(a, 6);
    a = (a + c) | 0;
    c = (c - b) | 0;
    c ^= rot(b, 8);
    b = (b + a) | 0;
    a = (a - c) | 0;
    a ^= rot(c, 16);
    c = (c + b) | 0;
    b = (b - a) | 0;
    b ^= rot(a, 19);
    a = (a + c) | 0;
    c = (c - b) | 0;
    c ^= rot(b, 4);
    b = (b + a) | 0;
  };
  if (seed !== 0n) {
    // The seed is hashed as a 12-byte chunk of its two halves and four zero bytes.
    a = (a + Number(BigInt.asUintN(32, seed >> 32n))) | 0;
    b = (b + Number(BigInt.asUintN(32, seed))) | 0;
    mix();
  }
  const words = new DataView(k.buffer, k.byteOffset, k.byteLength);
  let i = 0;
  for (; length >= 12; i += 12, length -= 12) {
    a = (a + words.getInt32(i, true)) | 0;
    b = (b + words.getInt32(i + 4, true)) | 0;
    c = (c + words.getInt32(i + 8, true)) | 0;
    mix();
  }
  // The last 0 to 11 bytes, little-endian into a, b, then c from its second byte: its lowest is left
  // for the length, as in the server.
  for (let j = 0; j < length; j++) {
    const byte = k[i + j] as number;
    if (j < 4) a = (a + (byte << (8 * j))) | 0;
    else if (j < 8) b = (b + (byte << (8 * (j - 4)))) | 0;
    else c = (c + (byte << (8 * (j - 7)))) | 0;
  }
  c ^= b;
  c = (c - rot(b, 14)) | 0;
  a ^= c;
  a = (a - rot(c, 11)) | 0;
  b ^= a;
  b = (b - rot(a, 25)) | 0;
  c ^= b;
  c = (c - rot(b, 16)) | 0;
  a ^= c;
  a = (a - rot(c, 4)) | 0;
  b ^= a;
  b = (b - rot(a, 14)) | 0;
  c ^= b;
  c = (c - rot(b, 24)) | 0;
  return BigInt.asIntN(64, (BigInt(b >>> 0) << 32n) | BigInt(c >>> 0));
}

const encoder = new TextEncoder();
const rot = (x: number, k: number) => (x << k) | (x >>> (32 - k));
