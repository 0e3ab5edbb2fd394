import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { novaVersionedSamples as versioned } from "../../../fixtures/oslo/nova-versioned-samples.ts";
import { cinderSamples, novaSamples as legacy } from "../../../fixtures/oslo/samples.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { encodeEnvelope } from "./envelope.ts";
import { interpretDelivery, twinReason } from "./interpret-delivery.ts";
import { TransitionTwins } from "./transition-twins.ts";

const target = { platform: "platform_a", cloud: "cloud-1" };
const read = (twins: TransitionTwins, message: JsonObject) =>
  interpretDelivery(encodeEnvelope(message), target, twins);

describe("a cloud sending both formats books each transition once", () => {
  test("the first of the twins is booked, the other skipped under its own type", () => {
    const twins = new TransitionTwins();
    expect(read(twins, legacy.powerOff)).toMatchObject({ outcome: "consumed" });
    expect(read(twins, versioned.powerOff)).toEqual({
      outcome: "skipped",
      event_type: "instance.power_off.end",
      reason: twinReason,
    });
  });

  test("in either order", () => {
    const twins = new TransitionTwins();
    expect(read(twins, versioned.create)).toMatchObject({ outcome: "consumed" });
    expect(read(twins, legacy.create)).toMatchObject({
      outcome: "skipped",
      event_type: "compute.instance.create.end",
    });
  });

  test("a redelivery of the booked notification is booked again (ingest deduplicates it): a requeue loses nothing", () => {
    const twins = new TransitionTwins();
    expect(read(twins, legacy.shelve).outcome).toBe("consumed");
    expect(read(twins, legacy.shelve).outcome).toBe("consumed");
    expect(read(twins, versioned.shelve).outcome).toBe("skipped");
  });

  test("another transition of the same instance in the same request is not a twin", () => {
    const twins = new TransitionTwins();
    expect(read(twins, legacy.shelve).outcome).toBe("consumed");
    expect(read(twins, legacy.shelveOffload).outcome).toBe("consumed");
    expect(read(twins, versioned.shelveOffload).outcome).toBe("skipped");
  });

  test("a notification naming no request is never taken for a twin; other services are never twins", () => {
    const twins = new TransitionTwins();
    const { _context_request_id: _, ...anonymous } = legacy.powerOn;
    const { _context_request_id: __, payload, ...rest } = versioned.powerOn;
    const data = { ...((payload as JsonObject)["nova_object.data"] as JsonObject), request_id: null };
    const anonymousTwin = { ...rest, payload: { ...(payload as JsonObject), "nova_object.data": data } };
    expect(read(twins, anonymous).outcome).toBe("consumed");
    expect(read(twins, anonymousTwin).outcome).toBe("consumed");
    expect(read(twins, cinderSamples.create).outcome).toBe("consumed");
    expect(read(twins, { ...cinderSamples.create, message_id: "another" }).outcome).toBe("consumed");
    expect(twins.size).toBe(0);
  });

  test("without a memory each body is read on its own", () => {
    expect(interpretDelivery(encodeEnvelope(versioned.powerOff), target).outcome).toBe("consumed");
  });
});

describe("the memory", () => {
  test("keeps the last transitions, the oldest forgotten first", () => {
    const twins = new TransitionTwins({ maxEntries: 3 });
    for (const key of ["a", "b", "c", "d"]) expect(twins.admit(key, `${key}-legacy`)).toBe(true);
    expect(twins.size).toBe(3);
    expect(twins.admit("a", "a-versioned")).toBe(true);
    expect(twins.admit("d", "d-versioned")).toBe(false);
  });

  test("property: of any interleaving of pairs, each transition is admitted once per distinct id order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.boolean()), { maxLength: 200 }),
        (arrivals) => {
          const twins = new TransitionTwins();
          const first = new Map<number, boolean>();
          for (const [transition, isVersioned] of arrivals) {
            const admitted = twins.admit(String(transition), `${transition}:${isVersioned}`);
            const booked = first.get(transition);
            if (booked === undefined) first.set(transition, isVersioned);
            expect(admitted).toBe(booked === undefined || booked === isVersioned);
          }
        },
      ),
    );
  });
});
