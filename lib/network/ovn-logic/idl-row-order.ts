/**
 * The order in which ovn-trace's OVSDB IDL iterates a table's rows, from the row UUIDs alone
 * (decision 337). ovn-trace sorts each datapath's flows with glibc's qsort, a merge sort and so
 * stable, by pipeline, table and priority only: flows of equal priority keep the order in which
 * `SBREC_LOGICAL_FLOW_FOR_EACH` met them, and that order decides which of two overlapping flows
 * matches. It is fixed by three steps, each reproduced here exactly (OVS 3.1, OVN 23.03):
 *
 * 1. ovsdb-server serialises the initial monitor reply once, with sorted object members
 *    (`json_serialized_object_create`, `JSSF_SORT`): the rows arrive in UUID text order.
 * 2. The client's JSON parser puts them in an `shash` (an `hmap` by `hash_string` of the UUID text),
 *    whose iteration order is the order the IDL inserts the rows in.
 * 3. The IDL's table is an `hmap` by `uuid_hash` (the UUID's first 32 bits); ovn-trace iterates it.
 *
 * An `hmap` iterates buckets in index order and each bucket from its head; an insert pushes onto the
 * head, and an expansion (to `calc_mask(n)` once `n / 2` exceeds the mask) moves every node, bucket
 * by bucket and head first, onto the heads of the new buckets, which reverses neighbours.
 */

const rot = (x: number, k: number): number => (x << k) | (x >>> (32 - k));

/** lib/hash.h's murmur-based `hash_add` (OVS builds without SSE 4.2 on x86-64 use this one). */
function hashAdd(hash: number, data: number): number {
  let h = hash;
  if (data !== 0) {
    let d = Math.imul(data, 0xcc9e2d51);
    d = rot(d, 15);
    d = Math.imul(d, 0x1b873593);
    h ^= d;
  }
  h = rot(h, 13);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function hashFinish(hash: number, final: number): number {
  let h = hash ^ final;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * OVS's `hash_string(s, 0)` (`hash_bytes`: little-endian words, the tail zero-padded, the length
 * mixed in last) for ASCII text, which is what the UUIDs it is used on are.
 */
export function ovsHashString(s: string): number {
  const n = s.length;
  let hash = 0;
  let i = 0;
  for (; i + 4 <= n; i += 4)
    hash = hashAdd(
      hash,
      s.charCodeAt(i) |
        (s.charCodeAt(i + 1) << 8) |
        (s.charCodeAt(i + 2) << 16) |
        (s.charCodeAt(i + 3) << 24),
    );
  if (i < n) {
    let tail = 0;
    for (let k = 0; i + k < n; k++) tail |= s.charCodeAt(i + k) << (8 * k);
    hash = hashAdd(hash, tail);
  }
  return hashFinish(hash, n);
}

/** lib/hmap.c's `calc_mask`: the next power of two minus one at or above `n / 2`, at least 3. */
function calcMask(n: number): number {
  let mask = Math.floor(n / 2);
  mask |= mask >>> 1;
  mask |= mask >>> 2;
  mask |= mask >>> 4;
  mask |= mask >>> 8;
  mask |= mask >>> 16;
  return mask | ((mask & 1) << 1);
}

/**
 * The iteration order of an `hmap` into which nodes with these hashes were inserted one by one
 * (`hmap_insert`, expanding as it does): the insertion indices, first visited first.
 */
export function hmapIterationOrder(hashes: ArrayLike<number>): number[] {
  const n = hashes.length;
  const next = new Int32Array(n);
  let mask = 0;
  let buckets = new Int32Array(1).fill(-1);
  for (let i = 0; i < n; i++) {
    const b = (hashes[i] ?? 0) & mask;
    next[i] = buckets[b] ?? -1;
    buckets[b] = i;
    const count = i + 1;
    if (Math.floor(count / 2) > mask) {
      const newMask = calcMask(count);
      if (newMask > mask) {
        const moved = new Int32Array(newMask + 1).fill(-1);
        for (let old = 0; old <= mask; old++) {
          for (let node = buckets[old] ?? -1; node !== -1; ) {
            const after = next[node] ?? -1;
            const nb = (hashes[node] ?? 0) & newMask;
            next[node] = moved[nb] ?? -1;
            moved[nb] = node;
            node = after;
          }
        }
        buckets = moved;
        mask = newMask;
      }
    }
  }
  const order: number[] = [];
  for (let b = 0; b <= mask; b++)
    for (let node = buckets[b] ?? -1; node !== -1; node = next[node] ?? -1) order.push(node);
  return order;
}

/**
 * The position of each row (by UUID) in the order ovn-trace's IDL iterates a table holding exactly
 * these rows, received in one initial monitor reply.
 */
export function idlRowOrder(uuids: Iterable<string>): Map<string, number> {
  const all = [...uuids];
  const first32 = all.map((u) => Number.parseInt(u.slice(0, 8), 16));
  // strcmp order, as shash_sort (UUIDs are lower-case hex on the wire): by the first 32 bits as
  // numbers, which is fast, and by the text only among the rare equal ones.
  const sent = all
    .map((_, i) => i)
    .sort((a, b) => (first32[a] ?? 0) - (first32[b] ?? 0) || ((all[a] ?? "") < (all[b] ?? "") ? -1 : 1));
  const parsed = hmapIterationOrder(sent.map((i) => ovsHashString(all[i] ?? ""))).map((k) => sent[k] ?? 0);
  const iterated = hmapIterationOrder(parsed.map((i) => first32[i] ?? 0));
  const rank = new Map<string, number>();
  for (const [position, k] of iterated.entries()) rank.set(all[parsed[k] ?? 0] ?? "", position);
  return rank;
}
