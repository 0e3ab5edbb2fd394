import { expect, test } from "bun:test";
import fc from "fast-check";
import { novaVersionedSamples } from "../../../fixtures/oslo/nova-versioned-samples.ts";
import { cinderSamples, novaSamples, unenvelopedBody } from "../../../fixtures/oslo/samples.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { encodeEnvelope } from "./envelope.ts";
import { interpretDelivery } from "./interpret-delivery.ts";
import { maxBodyBytes } from "./notification.ts";

const target = { platform: "platform_a", cloud: "cloud-1" };

test("a mapped notification is consumed", () => {
  const outcome = interpretDelivery(encodeEnvelope(cinderSamples.create), target);
  expect(outcome).toMatchObject({ outcome: "consumed", event_type: "volume.create.end" });
});

test("a versioned notification is consumed, counted under its versioned type", () => {
  expect(interpretDelivery(encodeEnvelope(novaVersionedSamples.powerOff), target)).toMatchObject({
    outcome: "consumed",
    event_type: "instance.power_off.end",
    event: { event_type: "compute.instance.power_off.end", payload: { state: "shutoff" } },
  });
});

test("a body without the oslo envelope is unparseable, named by the event_type it states", () => {
  expect(interpretDelivery(unenvelopedBody, target)).toEqual({
    outcome: "unparseable",
    event_type: "compute.instance.power_off.end",
    reason: "a notification without the oslo 2.0 envelope (driver messaging, not messagingv2)",
  });
  expect(interpretDelivery(JSON.stringify({ payload: {} }), target)).toMatchObject({
    outcome: "unparseable",
    event_type: null,
  });
});

test("a body past 1 MiB is unparseable without being read", () => {
  const big = {
    ...novaSamples.create,
    payload: { ...(novaSamples.create.payload as JsonObject), metadata: { b: "x".repeat(maxBodyBytes) } },
  };
  expect(interpretDelivery(encodeEnvelope(big), target)).toMatchObject({
    outcome: "unparseable",
    event_type: null,
  });
  expect(interpretDelivery(new TextEncoder().encode(encodeEnvelope(big)), target).outcome).toBe(
    "unparseable",
  );
});

test("an inner message cut in half is unparseable", () => {
  const inner = JSON.stringify(novaSamples.create);
  const body = JSON.stringify({ "oslo.version": "2.0", "oslo.message": inner.slice(0, inner.length / 2) });
  expect(interpretDelivery(body, target).outcome).toBe("unparseable");
});

test("non-JSON bodies, other envelope versions and inner messages without a type are unparseable", () => {
  for (const body of [
    "",
    "not json",
    "[1,2]",
    JSON.stringify({ "oslo.version": "1.0", "oslo.message": "{}" }),
    JSON.stringify({ "oslo.version": "2.0", "oslo.message": { event_type: "x.y" } }),
    JSON.stringify({ "oslo.version": "2.0", "oslo.message": JSON.stringify({ payload: {} }) }),
    JSON.stringify(novaSamples.create),
  ]) {
    expect(interpretDelivery(body, target).outcome).toBe("unparseable");
  }
});

test("a mapped event past 64 KiB is skipped", () => {
  const heavy = {
    ...novaSamples.create,
    payload: { ...(novaSamples.create.payload as JsonObject), metadata: { b: "x".repeat(70_000) } },
  };
  expect(interpretDelivery(encodeEnvelope(heavy), target)).toMatchObject({
    outcome: "skipped",
    event_type: "compute.instance.create.end",
  });
});

test("no body makes the interpretation throw", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.json().map((j) => JSON.stringify({ "oslo.version": "2.0", "oslo.message": j })),
      ),
      (body) => {
        expect(["unparseable", "skipped", "consumed"]).toContain(interpretDelivery(body, target).outcome);
      },
    ),
    { numRuns: 500 },
  );
});
