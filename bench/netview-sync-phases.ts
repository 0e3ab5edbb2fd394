// Where the time of one initial sync goes, measured in this process with netview's own pieces on a
// raw socket, the monitor asked for in netview's parts (monitor-parts.ts, decision 341): the server
// preparing its first reply (request sent to first byte), the transfer (first byte to last, framing
// included, which runs in the socket's data callbacks), JSON parsing and building the cache, each
// summed over the parts; since a part is parsed and decoded while the server composes the next, the
// phases add up to more than the total, and `after_last_byte_ms` is what is left once the last byte
// is in. Also what the cache holds in the heap against the replies' raw JSON.
import { DatabaseCache, type ReplacedPart } from "../lib/ovsdb/database-cache.ts";
import { initialFramerState, parseFrame, pushChunk } from "../lib/ovsdb/json-framer.ts";
import { type MonitorSplit, monitorParts } from "../lib/ovsdb/monitor-parts.ts";
import { parseRemote } from "../lib/ovsdb/remote.ts";
import { RpcConnection } from "../lib/ovsdb/rpc-connection.ts";
import { parseSchema } from "../lib/ovsdb/schema.ts";
import { decodeInitial } from "../lib/ovsdb/update2.ts";

export interface SyncPhases {
  server_ms: number;
  transfer_ms: number;
  /** Part of transfer_ms: the framer's scans and its UTF-8 decoding. */
  framing_ms: number;
  parse_ms: number;
  cache_build_ms: number;
  /** Last byte in to the cache built: the part of parse and build nothing overlaps. */
  after_last_byte_ms: number;
  total_ms: number;
  parts: number;
  raw_json_mib: number;
  cache_heap_mib: number;
  rows: number;
}

const ms = (x: number) => Math.round(x * 10) / 10;
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

function heapUsed(): number {
  Bun.gc(true);
  return process.memoryUsage().heapUsed;
}

/** One sync of `database` at `remote` (`tcp:host:port`) in the parts `split` makes, phase by phase. */
export async function syncPhases(
  remote: string,
  database: string,
  split?: MonitorSplit,
): Promise<SyncPhases> {
  const parsed = parseRemote(remote);
  if (parsed.kind !== "tcp") throw new Error("syncPhases needs a tcp: remote");
  const rpc = await RpcConnection.open(parsed, { probeIntervalMs: 0 });
  const schema = parseSchema(await rpc.request("get_schema", [database]));
  rpc.close();
  const parts = monitorParts(database, schema, undefined, split);
  const requests = parts
    .map((part, id) =>
      JSON.stringify({
        method: "monitor_cond_since",
        params: [database, part.id, part.requests, "00000000-0000-0000-0000-000000000000"],
        id,
      }),
    )
    .join("");
  const framer = initialFramerState();
  let framingMs = 0;
  let parseMs = 0;
  let buildMs = 0;
  let firstByte = 0;
  let lastByte = 0;
  let sent = 0;
  let rawBytes = 0;
  const replaced: ReplacedPart[] = [];
  await new Promise<void>((resolve, reject) => {
    Bun.connect({
      hostname: parsed.host,
      port: parsed.port,
      socket: {
        open(socket) {
          sent = performance.now();
          socket.write(requests);
        },
        data(socket, chunk) {
          if (firstByte === 0) firstByte = performance.now();
          rawBytes += chunk.byteLength;
          let t = performance.now();
          const frames = pushChunk(framer, chunk);
          framingMs += performance.now() - t;
          for (const frame of frames) {
            lastByte = performance.now();
            t = performance.now();
            const message = parseFrame(frame) as { id: number; result?: [unknown, unknown, unknown] };
            parseMs += performance.now() - t;
            t = performance.now();
            const part = parts[message.id];
            if (part === undefined) throw new Error(`reply to no request: ${frame.slice(0, 200)}`);
            replaced.push({ tables: decodeInitial(schema, message.result?.[2]), owns: part.owns });
            buildMs += performance.now() - t;
          }
          if (replaced.length === parts.length) {
            socket.end();
            resolve();
          }
        },
        error(_socket, error) {
          reject(error);
        },
      },
    }).catch(reject);
  });
  const t = performance.now();
  let cache: DatabaseCache | undefined = new DatabaseCache(database);
  cache.replaceParts(schema, replaced);
  const done = performance.now();
  buildMs += done - t;
  replaced.length = 0;
  const rows = Object.keys(schema.tables).reduce((sum, table) => sum + (cache?.count(table) ?? 0), 0);
  // With the cache and without it: what else the sync left in the heap counts in neither.
  const withCache = heapUsed();
  cache = undefined;
  const cacheBytes = withCache - heapUsed();
  return {
    server_ms: ms(firstByte - sent),
    transfer_ms: ms(lastByte - firstByte),
    framing_ms: ms(framingMs),
    parse_ms: ms(parseMs),
    cache_build_ms: ms(buildMs),
    after_last_byte_ms: ms(done - lastByte),
    total_ms: ms(done - sent),
    parts: parts.length,
    raw_json_mib: mib(rawBytes),
    cache_heap_mib: mib(cacheBytes),
    rows,
  };
}
