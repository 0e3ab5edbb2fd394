import { expect, test } from "bun:test";
import { brokerUrl, replyCode } from "./broker-client.ts";
import { quorumRefusal } from "./broker-release.ts";

test("a quorum queue is declared on RabbitMQ 4.0 and newer only", () => {
  for (const version of ["4.0.0", "4.0.5", "4.1.2", "4.2.0-rc.1", "5.0"])
    expect(quorumRefusal(version)).toBeNull();
  expect(quorumRefusal("3.10.8")).toBe(
    "SVC_OSC_QUEUE_TYPE=quorum needs RabbitMQ 4.0 or newer; the broker runs 3.10: set SVC_OSC_QUEUE_TYPE=classic or upgrade the broker",
  );
  expect(quorumRefusal("3.13.7")).toContain("the broker runs 3.13");
});

test("an unreadable release is refused too", () => {
  expect(quorumRefusal(undefined)).toBe(
    "SVC_OSC_QUEUE_TYPE=quorum needs RabbitMQ 4.0 or newer; the broker announces no release, which cannot be read as a release: set SVC_OSC_QUEUE_TYPE=classic or upgrade the broker",
  );
  expect(quorumRefusal("latest")).toContain('the broker announces "latest", which cannot be read');
  expect(quorumRefusal(4)).toContain("announces no release");
});

test("the broker URL gets a heartbeat and large frames unless it names its own", () => {
  expect(brokerUrl("amqp://u:p@host:5672/vh")).toBe("amqp://u:p@host:5672/vh?heartbeat=30&frameMax=131072");
  expect(brokerUrl("amqps://host/vh?heartbeat=5")).toBe("amqps://host/vh?heartbeat=5&frameMax=131072");
});

test("the reply code of a channel or connection close", () => {
  expect(replyCode(new Error("channel 2 closed: NOT_FOUND - no exchange 'x' in vhost 'y' (404)"))).toBe(404);
  expect(replyCode(new Error("Socket closed"))).toBeNull();
  expect(replyCode("text (404)")).toBeNull();
});
