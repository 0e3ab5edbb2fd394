/**
 * An AMQP connection that also keeps what the broker announced in its greeting (connection.start's
 * server properties, where RabbitMQ puts its `version`): @cloudamqp/amqp-client reads past them.
 * The greeting is the first frame of a connection, so it is read before the client parses it.
 */
import { AMQPClient } from "@cloudamqp/amqp-client";
import type { Field } from "@cloudamqp/amqp-client/amqp-properties";
import type { AMQPView } from "@cloudamqp/amqp-client/amqp-view";

const frameMethod = 1;
const connectionClass = 10;
const startMethod = 10;
/** type (1), channel (2), size (4), class (2), method (2), version-major (1), version-minor (1). */
const serverPropertiesOffset = 13;

/**
 * Query parameters the client reads from the URL: a heartbeat, so a dead broker is noticed within two
 * intervals (default 30 s), and frames of 128 KiB rather than 8 KiB for notification bodies.
 */
export function brokerUrl(url: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has("heartbeat")) parsed.searchParams.set("heartbeat", "30");
  if (!parsed.searchParams.has("frameMax")) parsed.searchParams.set("frameMax", "131072");
  return parsed.toString();
}

export class BrokerClient extends AMQPClient {
  /** The broker's greeting properties, once connected. */
  serverProperties: Record<string, Field> | undefined;

  constructor(url: string) {
    super(brokerUrl(url));
  }

  protected override parseFrames(view: AMQPView): void {
    if (
      this.serverProperties === undefined &&
      view.byteLength > serverPropertiesOffset &&
      view.getUint8(0) === frameMethod &&
      view.getUint16(1) === 0 &&
      view.getUint16(7) === connectionClass &&
      view.getUint16(9) === startMethod
    ) {
      this.serverProperties = view.getTable(serverPropertiesOffset)[0];
    }
    super.parseFrames(view);
  }

  /** The release the broker announced (`version`), undefined when it announced none. */
  get brokerVersion(): unknown {
    return this.serverProperties?.version;
  }
}

/** The AMQP reply code an error of the client carries (`... (404)`), null for a socket failure. */
export function replyCode(error: unknown): number | null {
  const match = error instanceof Error ? /\((\d{3})\)$/.exec(error.message) : null;
  return match === null ? null : Number(match[1]);
}
