/**
 * One line of `collector --dump` (docs/collector.md#dumping-deliveries): what the broker delivered,
 * with the value of every member whose name looks secret replaced by `[redacted]` at any depth. A body
 * that is not JSON, and an inner message that is not JSON, are reported by size only; a JSON body that
 * is not an oslo 2.0 envelope gets a 512-byte preview, redacted before it is cut (decision 272).
 */
import { isSecretName, redactedMark, redactUrlCredentials } from "../../foundation/log/redact.ts";
import { maxBodyBytes, osloVersion } from "../oslo/notification.ts";

const previewBytes = 512;
const secretWord = /password|token|secret|connection_info/i;

interface DumpDelivery {
  body: Uint8Array;
  exchange: string;
  routingKey: string;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isContainer(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

/**
 * `value` with secret-named members redacted at any depth. A string holding JSON (an `oslo.message`)
 * is redacted inside; a string that opens like JSON but does not parse (a cut-off message) and names
 * a secret is withheld whole, since where its values end cannot be read.
 */
export function redactDeep(value: unknown): unknown {
  if (typeof value === "string") {
    const trimmed = value.trimStart();
    if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
      const inner = parse(value);
      if (isContainer(inner)) return JSON.stringify(redactDeep(inner));
      if (secretWord.test(value)) return redactedMark;
    }
    return redactUrlCredentials(value);
  }
  if (Array.isArray(value)) return value.map(redactDeep);
  if (!isContainer(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value))
    out[key] = isSecretName(key) ? redactedMark : redactDeep(member);
  return out;
}

/** The first `bytes` bytes of `text` as UTF-8, never ending inside a character. */
function cut(text: string, bytes: number): string {
  const encoded = new TextEncoder().encode(text);
  if (encoded.byteLength <= bytes) return text;
  let end = bytes;
  // Step back over continuation bytes (10xxxxxx) so a character is never split.
  while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(encoded.subarray(0, end));
}

export function dumpLine(delivery: DumpDelivery): string {
  const where = { exchange: delivery.exchange, routing_key: delivery.routingKey };
  const size = delivery.body.byteLength;
  const text = new TextDecoder().decode(delivery.body);
  const body = parse(text);
  if (body === undefined)
    return JSON.stringify({ ...where, body_bytes: size, problem: "the body is not JSON" });
  const envelope = body as Record<string, unknown>;
  const unparseable = (problem: string) =>
    JSON.stringify({
      ...where,
      body_bytes: size,
      problem,
      preview: cut(JSON.stringify(redactDeep(body)), previewBytes),
    });
  if (size > maxBodyBytes) return unparseable(`the body is above ${maxBodyBytes} bytes`);
  if (!isContainer(body) || Array.isArray(body) || envelope["oslo.version"] !== osloVersion)
    return unparseable("not an oslo 2.0 envelope");
  const message = envelope["oslo.message"];
  if (typeof message !== "string") return unparseable("oslo.message is not a string");
  const inner = parse(message);
  if (!isContainer(inner))
    return JSON.stringify({
      ...where,
      body_bytes: size,
      problem: "oslo.message is not JSON",
      message_bytes: Buffer.byteLength(message),
    });
  return JSON.stringify({ ...where, oslo_version: osloVersion, message: redactDeep(inner) });
}
