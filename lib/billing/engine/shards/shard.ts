/**
 * One of the N parts a run spread over worker processes splits its month into (`--workers N`,
 * decision 470): the resources whose key hashes to `index` modulo `count`. The hash is PostgreSQL's
 * `hashtext` of `cloud/resource_type/resource_id`, computed by the database that holds the rows (the
 * events for a run, the standing lines for a correction), so a resource's whole history and its lines
 * fall to one shard and no row crosses a worker. Even load whatever the projects look like
 * (docs/engine-scaling.md, choosing the shard key).
 */
export interface Shard {
  index: number;
  count: number;
}

/** Most workers a run takes: far more than a machine's cores, fewer than the database's connections. */
export const maxWorkers = 32;

/** `k/N`, as the coordinator names a worker's shard on its command line. */
export function shardName(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

export function parseShard(text: string): Shard {
  const match = /^(\d{1,2})\/(\d{1,2})$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || count > maxWorkers || index >= count) {
    throw new RangeError(
      `--shard: expected k/N with 0 <= k < N <= ${maxWorkers}, got ${JSON.stringify(text)}`,
    );
  }
  return { index, count };
}

/**
 * The SQL condition that keeps the shard's rows of a table whose resource key is `alias.cloud`,
 * `alias.resource_type`, `alias.resource_id`. `hashtext` is signed: its low 31 bits are taken.
 */
export function shardCondition(shard: Shard, alias: string): string {
  if (!/^[a-z_]+$/.test(alias)) throw new RangeError(`not an alias: ${JSON.stringify(alias)}`);
  const { index, count } = shard;
  if (!(Number.isInteger(index) && Number.isInteger(count) && index >= 0 && index < count))
    throw new RangeError(`not a shard: ${index}/${count}`);
  return `(hashtext(${alias}.cloud || '/' || ${alias}.resource_type || '/' || ${alias}.resource_id) & 2147483647) % ${count} = ${index}`;
}
