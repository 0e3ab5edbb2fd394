// Where the time of one initial sync goes, measured in this process with netview's own pieces on a
// raw socket: the server preparing its reply to the select that reads the rows (request sent to first
// byte), the transfer (first byte to last, framing included, which runs in the socket's data
// callbacks), JSON parsing, and building the cache; and what the cache holds in the heap against the
// reply's raw JSON. (The monitor netview starts before the select sends no rows: decision 342.)
import { DatabaseCache } from "../lib/network/ovsdb/database-cache.ts";
import { initialFramerState, parseFrame, pushChunk } from "../lib/network/ovsdb/json-framer.ts";
import { monitoredTables } from "../lib/network/ovsdb/ovsdb-client.ts";
import { parseRemote } from "../lib/network/ovsdb/remote.ts";
import { RpcConnection } from "../lib/network/ovsdb/rpc-connection.ts";
import { parseSchema } from "../lib/network/ovsdb/schema.ts";
import { decodeSelectedRows, selectOperations } from "../lib/network/ovsdb/selected-rows.ts";

export interface SyncPhases {
  server_ms: number;
  transfer_ms: number;
  /** Part of transfer_ms: the framer's scans and its UTF-8 decoding. */
  framing_ms: number;
  parse_ms: number;
  cache_build_ms: number;
  total_ms: number;
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

/** One sync of `database` at `remote` (`tcp:host:port`), phase by phase. */
export async function syncPhases(remote: string, database: string): Promise<SyncPhases> {
  const parsed = parseRemote(remote);
  if (parsed.kind !== "tcp") throw new Error("syncPhases needs a tcp: remote");
  const rpc = await RpcConnection.open(parsed, { probeIntervalMs: 0 });
  const schema = parseSchema(await rpc.request("get_schema", [database]));
  rpc.close();
  const tables = monitoredTables(schema);
  const request = JSON.stringify({
    method: "transact",
    params: [database, ...selectOperations(schema, tables)],
    id: 1,
  });
  const framer = initialFramerState();
  let framingMs = 0;
  let firstByte = 0;
  let sent = 0;
  let rawBytes = 0;
  const reply = await new Promise<string>((resolve, reject) => {
    Bun.connect({
      hostname: parsed.host,
      port: parsed.port,
      socket: {
        open(socket) {
          sent = performance.now();
          socket.write(request);
        },
        data(socket, chunk) {
          if (firstByte === 0) firstByte = performance.now();
          rawBytes += chunk.byteLength;
          const t = performance.now();
          const frames = pushChunk(framer, chunk);
          framingMs += performance.now() - t;
          if (frames[0] !== undefined) {
            socket.end();
            resolve(frames[0]);
          }
        },
        error(_socket, error) {
          reject(error);
        },
      },
    }).catch(reject);
  });
  const lastByte = performance.now();
  const before = heapUsed();
  let t = performance.now();
  let message = parseFrame(reply) as { result?: unknown } | undefined;
  const parseMs = performance.now() - t;
  t = performance.now();
  const cache = new DatabaseCache(database);
  cache.replaceTables(schema, decodeSelectedRows(schema, tables, message?.result));
  const buildMs = performance.now() - t;
  message = undefined;
  const cacheBytes = heapUsed() - before;
  const rows = Object.keys(schema.tables).reduce((sum, table) => sum + cache.count(table), 0);
  return {
    server_ms: ms(firstByte - sent),
    transfer_ms: ms(lastByte - firstByte),
    framing_ms: ms(framingMs),
    parse_ms: ms(parseMs),
    cache_build_ms: ms(buildMs),
    total_ms: ms(lastByte - sent + parseMs + buildMs),
    raw_json_mib: mib(rawBytes),
    cache_heap_mib: mib(cacheBytes),
    rows,
  };
}
