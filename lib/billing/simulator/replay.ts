import { readFile } from "node:fs/promises";
import type { Logger } from "../../foundation/log/logger.ts";
import { instantFromMs } from "../../foundation/time/instant.ts";
import { parseEnvelope } from "../oslo/envelope.ts";
import { osloInstant } from "../oslo/timestamp.ts";
import { type BusSessionReport, type ListenAddress, runBusSession } from "./bus-session.ts";
import { declaredExchanges, type NotificationLine } from "./notification-line.ts";
import type { TimedLine } from "./publish-lines.ts";

/** A replayed line is at most this long, like a delivery body (docs/simulator.md#replaying-a-recorded-month). */
export const maxReplayLineBytes = 1024 * 1024;

/** Refusals named at once before the file is refused: enough to see the pattern, not a flood. */
const shownProblems = 10;

/** The file cannot be replayed: nothing was published. */
export class ReplayFileError extends Error {
  constructor(
    readonly path: string,
    readonly problems: readonly string[],
    total: number,
  ) {
    const more = total > problems.length ? `\n  ... and ${total - problems.length} more` : "";
    super(`--in ${path} cannot be replayed:\n  ${problems.join("\n  ")}${more}`);
  }
}

export interface ReplayFile {
  lines: TimedLine[];
  exchanges: string[];
  /** The instants of the first line and the latest line. */
  firstMs: number;
  lastMs: number;
}

function lineProblem(text: string): string | TimedLine {
  if (Buffer.byteLength(text, "utf8") > maxReplayLineBytes) {
    return `is longer than ${maxReplayLineBytes} bytes (a refused-shapes month cannot be replayed)`;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "is not JSON";
  }
  const line = value as Partial<NotificationLine> | null;
  if (
    typeof line !== "object" ||
    line === null ||
    Array.isArray(line) ||
    typeof line.exchange !== "string" ||
    typeof line.routing_key !== "string" ||
    typeof line.body !== "string"
  ) {
    return "is not an object with string members exchange, routing_key and body";
  }
  if (!(declaredExchanges as readonly string[]).includes(line.exchange)) {
    const hint = line.exchange === "cinder" ? " (volume notifications travel on platform_a)" : "";
    return `names the exchange ${JSON.stringify(line.exchange)}, which is not one of ${declaredExchanges.join(", ")}${hint}`;
  }
  const envelope = parseEnvelope(line.body);
  const instant = envelope.kind === "notification" ? osloInstant(envelope.notification.timestamp) : null;
  if (instant === null) {
    const why = envelope.kind === "unparseable" ? `: ${envelope.reason}` : "";
    return `has a body without a usable timestamp${why}`;
  }
  return {
    at: Date.parse(instant),
    line: { exchange: line.exchange, routing_key: line.routing_key, body: line.body },
  };
}

/**
 * Reads a `notifications.jsonl` (or `held-back.jsonl`) whole before anything is published, refusing
 * it up front (docs/simulator.md#replaying-a-recorded-month): an empty file, a line that is not JSON or not a notification line, a
 * line past 1 MiB, a body without a usable timestamp (one the collector's envelope reader accepts,
 * with an instant), an undeclared exchange. Each line keeps its body byte for byte, message id
 * included, so a second replay is deduplicated at ingest.
 */
export async function readReplayFile(path: string): Promise<ReplayFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ReplayFileError(path, [`cannot be read (${code})`], 1);
  }
  const raw = text.split("\n");
  if (raw[raw.length - 1] === "") raw.pop();
  if (raw.length === 0) throw new ReplayFileError(path, ["is empty"], 1);
  const lines: TimedLine[] = [];
  const problems: string[] = [];
  let failures = 0;
  raw.forEach((text, index) => {
    const read = lineProblem(text.endsWith("\r") ? text.slice(0, -1) : text);
    if (typeof read === "string") {
      failures += 1;
      if (problems.length < shownProblems) problems.push(`line ${index + 1} ${read}`);
    } else lines.push(read);
  });
  if (failures > 0) throw new ReplayFileError(path, problems, failures);
  const first = lines[0] as TimedLine;
  return {
    lines,
    exchanges: [...new Set(lines.map((l) => l.line.exchange))].sort(),
    firstMs: first.at,
    lastMs: Math.max(...lines.map((l) => l.at)),
  };
}

/** The UTC calendar month holding `ms`: the period a replay's clock document names (decision 242). */
function monthAround(ms: number): { from: string; to: string } {
  const d = new Date(ms);
  return {
    from: instantFromMs(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)),
    to: instantFromMs(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)),
  };
}

/**
 * `replay --in`: publishes a recorded file on the virtual clock from its first line's instant; a line
 * dated before its predecessor goes out at once. Only the control routes are served (no fake API, no
 * inventory), and nothing is held back.
 */
export async function runReplay(input: {
  file: ReplayFile;
  amqpUrl: string;
  factor: number;
  waitForCollectorMs: number;
  listen: ListenAddress;
  logger: Logger;
  signal: AbortSignal;
  onListening?: (port: number) => void;
}): Promise<BusSessionReport> {
  const { file } = input;
  const period = monthAround(file.lastMs);
  return runBusSession({
    amqpUrl: input.amqpUrl,
    exchanges: file.exchanges,
    listen: input.listen,
    logger: input.logger,
    signal: input.signal,
    startMs: file.firstMs,
    factor: input.factor,
    waitForCollectorMs: input.waitForCollectorMs,
    periodFrom: period.from,
    periodTo: period.to,
    regular: file.lines,
    held: null,
    total: file.lines.length,
    onListening: input.onListening,
  });
}
