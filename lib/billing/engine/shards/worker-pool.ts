import { type Shard, shardName } from "./shard.ts";

/** How a run spread over processes starts its workers (decision 470). */
export interface Workers {
  /** How many; 1 is the run in the caller's process, without workers. */
  count: number;
  /** The engine itself, started again (`selfCommand()`); each worker adds `shard` and its flags. */
  command: readonly string[];
}

/** A worker ended without finishing its shard: the run fails as a whole. */
export class WorkerFailed extends Error {}

/** What a worker said last on stderr, kept for the failure's message: its last line is the reason. */
const keptStderr = 4_000;

interface Started {
  shard: Shard;
  process: Bun.Subprocess<"ignore", "ignore", "pipe">;
  stderr: Promise<string>;
}

async function tail(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream)
    text = (text + decoder.decode(chunk, { stream: true })).slice(-keptStderr);
  return text;
}

function failure(worker: Started, code: number, stderr: string): Error {
  const name = `the worker of shard ${shardName(worker.shard)} (pid ${worker.process.pid})`;
  const signal = worker.process.signalCode;
  const said = stderr.trim().split("\n").at(-1) ?? "";
  const how = signal !== null ? `was killed by ${signal}` : `exited with status ${code}`;
  return new Error(`${name} ${how}${said === "" ? "" : ` (${said})`}`);
}

/**
 * Starts one worker process per shard, `[...command, ...args(shard)]` in this process's environment,
 * and waits for all of them. The first that ends without success (a status other than 0, or a
 * signal: `kill -9`) makes the others be stopped, and once every one has ended a `WorkerFailed`
 * naming the run and the worker is thrown. A worker watches this process and ends when it does (`whenParentGone`).
 */
export async function runWorkers(
  workers: Workers,
  runId: string,
  args: (shard: Shard) => readonly string[],
): Promise<void> {
  const started: Started[] = [];
  for (let index = 0; index < workers.count; index += 1) {
    const shard = { index, count: workers.count };
    const process = Bun.spawn([...workers.command, ...args(shard)], {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    started.push({ shard, process, stderr: tail(process.stderr) });
  }
  let failed: Error | null = null;
  const pending = new Set(started);
  while (pending.size > 0) {
    const [worker, code] = await Promise.race(
      [...pending].map((w) => w.process.exited.then((c) => [w, c] as const)),
    );
    pending.delete(worker);
    if (code === 0 && worker.process.signalCode === null) continue;
    if (failed === null) {
      failed = failure(worker, code, await worker.stderr);
      for (const other of pending) other.process.kill("SIGTERM");
    }
  }
  if (failed !== null)
    throw new WorkerFailed(`run ${runId} failed: ${failed.message}; nothing of it stands: run it again`, {
      cause: failed,
    });
}

/**
 * The workers of a run or a correction (`engine shard`), each told the run, its shard and the
 * coordinator's exported snapshot with its read instant; resolves once every shard is in.
 */
export function meterShards(
  workers: Workers,
  runId: string,
  snapshot: { id: string; readAt: string },
): Promise<void> {
  return runWorkers(workers, runId, (shard) => [
    "shard",
    "--run",
    runId,
    "--shard",
    shardName(shard),
    "--snapshot",
    snapshot.id,
    "--read-at",
    snapshot.readAt,
  ]);
}
