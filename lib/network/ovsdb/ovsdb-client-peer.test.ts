// Paths no local ovsdb-server takes: a cluster member cut off from its cluster, a server that predates
// monitor_cond_since (so the client must fall back to monitor_cond), a server's own echo probe, an
// update split mid-character across writes, and updates on both sides of the initial select's reply
// in one write.
// A scripted JSON-RPC peer plays that server; everything else is tested against the real one.
import { afterAll, expect, test } from "bun:test";
import type { Socket } from "bun";
import { OvsdbClient } from "./ovsdb-client.ts";
import { parseRemote } from "./remote.ts";

const schema = {
  name: "Old",
  version: "1.0.0",
  tables: {
    T: { columns: { name: { type: "string" }, tags: { type: { key: "string", min: 0, max: "unlimited" } } } },
  },
};
const u1 = "11111111-1111-1111-1111-111111111111";
const seen: string[] = [];
let serverChecks = 0;
const echoReplies: unknown[] = [];
let peer: Socket<undefined> | undefined;
const encoder = new TextEncoder();

interface Message {
  method?: string;
  params: unknown[];
  id: unknown;
}

/** A JSON-RPC peer on a free port: `answer` gets each message it reads (the tests write no nested `}{`). */
function scriptedPeer(
  answer: (socket: Socket<undefined>, message: Message) => void,
  opened: (socket: Socket<undefined>) => void,
) {
  return Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: opened,
      data(socket, data) {
        for (const text of new TextDecoder().decode(data).split(/(?<=\})(?=\{)/)) {
          answer(socket, JSON.parse(text) as Message);
        }
      },
    },
  });
}

/** A started client of the "Old" database on a local peer, quick to retry. */
function startedClient(port: number): OvsdbClient {
  const client = new OvsdbClient({
    remotes: [parseRemote(`tcp:127.0.0.1:${port}`)],
    database: "Old",
    probeIntervalMs: 0,
    backoff: { initialMs: 20, maxMs: 40 },
  });
  client.start();
  return client;
}

const server = scriptedPeer(
  (socket, message) => {
    if (message.method === undefined) {
      echoReplies.push(message);
      return;
    }
    seen.push(message.method);
    const reply = (result: unknown, error: unknown = null) =>
      socket.write(JSON.stringify({ id: message.id, result, error }));
    if (message.method === "transact") {
      // The first session finds this member cut off from its cluster; the next one connected.
      serverChecks++;
      reply([{ rows: [{ model: "clustered", connected: serverChecks > 1 }] }]);
    } else if (message.method === "get_schema") reply(schema);
    else if (message.method === "monitor_cond_since") reply(null, "unknown method");
    else if (message.method === "monitor_cond") reply({ T: { [u1]: { initial: { name: "a" } } } });
    else reply(null, "unknown method");
  },
  (socket) => {
    peer = socket;
  },
);

afterAll(() => server.stop(true));

test("skips a cut-off cluster member, falls back to monitor_cond, answers echo, and applies an update split across writes", async () => {
  const client = startedClient(server.port);
  try {
    await client.ready();
    // The schema is asked for beside the cluster check, and a fresh sync's select beside its monitor.
    expect(seen).toEqual([
      "transact",
      "get_schema",
      "transact",
      "get_schema",
      "monitor_cond_since",
      "transact",
      "monitor_cond",
    ]);
    expect(client.cache.get("T", u1)).toEqual({ _uuid: u1, name: "a", tags: [] });

    peer?.write(JSON.stringify({ method: "echo", params: ["ping"], id: "echo" }));
    for (let i = 0; i < 100 && echoReplies.length === 0; i++) await Bun.sleep(10);
    expect(echoReplies).toEqual([{ result: ["ping"], error: null, id: "echo" }]);

    const update = encoder.encode(
      JSON.stringify({
        method: "update2",
        params: ["Old", { T: { [u1]: { modify: { name: "é", tags: ["set", ["x"]] } } } }],
        id: null,
      }),
    );
    const cut = update.indexOf(0xc3) + 1; // inside the two bytes of "é"
    peer?.write(update.subarray(0, cut));
    await Bun.sleep(20);
    expect(client.cache.get("T", u1)?.name).toBe("a");
    peer?.write(update.subarray(cut));
    for (let i = 0; i < 100 && client.cache.get("T", u1)?.name !== "é"; i++) await Bun.sleep(10);
    expect(client.cache.get("T", u1)).toEqual({ _uuid: u1, name: "é", tags: ["x"] });

    // A second session does not try monitor_cond_since again.
    seen.length = 0;
    peer?.end();
    for (let i = 0; i < 300 && seen.length < 3; i++) await Bun.sleep(10);
    expect(seen).toEqual(["transact", "get_schema", "monitor_cond"]);
  } finally {
    client.stop();
  }
});

test("an update before the select's reply is in the rows read; one after it is applied; the next session resumes from the last", async () => {
  const u2 = "22222222-2222-2222-2222-222222222222";
  const since: unknown[] = [];
  let session: Socket<undefined> | undefined;
  const notify = (txn: string, update: unknown) =>
    JSON.stringify({ method: "update3", params: ["Old", txn, update], id: null });
  const scripted = scriptedPeer(
    (socket, message) => {
      const reply = (result: unknown) => JSON.stringify({ id: message.id, result, error: null });
      if (message.method === "get_schema") socket.write(reply(schema));
      else if (message.method === "monitor_cond_since") {
        since.push(message.params[3]);
        socket.write(reply([false, "t0", {}]));
      } else if (message.method === "transact" && message.params[0] === "_Server") {
        socket.write(reply([{ rows: [] }]));
      } else if (message.method === "transact") {
        // t1 committed before the select was read, so its rows hold it; t2 came after.
        const rows = [
          { _uuid: ["uuid", u1], name: "a", tags: ["set", []] },
          { _uuid: ["uuid", u2], name: "b", tags: "x" },
        ];
        socket.write(
          notify("t1", { T: { [u2]: { insert: { name: "b", tags: "x" } } } }) +
            reply([{ rows }]) +
            notify("t2", { T: { [u1]: { modify: { name: "c" } } } }),
        );
      }
    },
    (socket) => {
      session = socket;
    },
  );
  const client = startedClient(scripted.port);
  try {
    await client.ready();
    for (let i = 0; i < 100 && client.cache.get("T", u1)?.name !== "c"; i++) await Bun.sleep(10);
    expect(client.cache.rows("T")).toEqual([
      { _uuid: u1, name: "c", tags: [] },
      { _uuid: u2, name: "b", tags: ["x"] },
    ]);
    expect(client.syncs).toBe(1);
    session?.end();
    for (let i = 0; i < 300 && since.length < 2; i++) await Bun.sleep(10);
    expect(since).toEqual(["00000000-0000-0000-0000-000000000000", "t2"]);
  } finally {
    client.stop();
    scripted.stop(true);
  }
});
