import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { instantRefusals } from "../../foundation/time/instant.ts";
import { validateEvent } from "./validate.ts";

const good = {
  event_id: "platform_a:abc",
  timestamp: "2026-10-01T12:00:00Z",
  event_type: "compute.instance.create.end",
  platform: "platform_a",
  cloud: "cloud-1",
  resource_type: "instance",
  resource_id: "i-1",
  project_id: "p-1",
  payload: {
    state: "active",
    size: { vcpus: 1, ram_gb: 2, disk_gb: 20, flavor: "m1" },
    extra: [1, { a: 2 }],
  },
};

function errorsOf(item: unknown): { loc: string; msg: string }[] {
  const r = validateEvent(item, "body");
  return r.ok ? [] : r.errors;
}

describe("validateEvent: examples", () => {
  test("a valid event passes, canonical timestamp, source defaults to collector, extra payload kept", () => {
    const r = validateEvent(good, "body");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.event.timestamp).toBe("2026-10-01T12:00:00.000Z");
    expect(r.event.source).toBe("collector");
    expect(r.event.payload.extra).toEqual([1, { a: 2 }]);
  });

  test("an offset is accepted and the instant stored in UTC", () => {
    const r = validateEvent({ ...good, timestamp: "2026-10-01T14:00:00.123456+02:00" }, "body");
    expect(r.ok && r.event.timestamp).toBe("2026-10-01T12:00:00.123Z");
  });

  test("every broken rule is reported at once", () => {
    const errors = errorsOf({
      event_id: "",
      timestamp: "yesterday",
      event_type: "Compute",
      platform: "meta",
      cloud: "partner",
      resource_type: 7,
      project_id: "p",
      source: "manual",
      payload: { size: "big" },
      bogus: true,
    });
    expect(errors).toEqual([
      { loc: "body.bogus", msg: "is not a member of an event" },
      { loc: "body.event_id", msg: "must not be empty" },
      { loc: "body.timestamp", msg: instantRefusals.shape },
      {
        loc: "body.event_type",
        msg: "must be two or more dot-separated parts of lower-case letters, digits and underscores",
      },
      { loc: "body.platform", msg: "must not be meta or partner (reserved for virtual projects)" },
      { loc: "body.cloud", msg: "must not be meta or partner (reserved for virtual projects)" },
      { loc: "body.resource_type", msg: "must be a string" },
      { loc: "body.resource_id", msg: "is required" },
      { loc: "body.source", msg: "must be collector or reconciliation" },
      { loc: "body.payload.size", msg: "must be an object" },
    ]);
  });

  test("length is checked before pattern and the refusal does not quote the value", () => {
    const long = `A${"b".repeat(600)}`;
    const errors = errorsOf({ ...good, event_type: long });
    expect(errors).toEqual([{ loc: "body.event_type", msg: "must be at most 512 characters" }]);
    expect(JSON.stringify(errors)).not.toContain("bbbb");
  });

  test("lengths count characters, not UTF-16 units", () => {
    expect(errorsOf({ ...good, resource_id: "😀".repeat(512) })).toEqual([]);
    expect(errorsOf({ ...good, resource_id: "😀".repeat(513) })).toEqual([
      { loc: "body.resource_id", msg: "must be at most 512 characters" },
    ]);
    expect(errorsOf({ ...good, event_id: "x".repeat(256) })).toEqual([]);
    expect(errorsOf({ ...good, event_id: "x".repeat(257) })).toEqual([
      { loc: "body.event_id", msg: "must be at most 256 characters" },
    ]);
  });

  test("state is required except on a delete; size is required on a create", () => {
    expect(errorsOf({ ...good, payload: {} })).toEqual([
      { loc: "body.payload.state", msg: "is required on every event except a delete" },
      { loc: "body.payload.size", msg: "is required on a create" },
    ]);
    expect(errorsOf({ ...good, event_type: "compute.instance.power_off.end", payload: {} })).toEqual([
      { loc: "body.payload.state", msg: "is required on every event except a delete" },
    ]);
    expect(
      errorsOf({ ...good, event_type: "compute.instance.delete.end", payload: { state: null } }),
    ).toEqual([]);
    expect(errorsOf({ ...good, payload: undefined })).toEqual([{ loc: "body.payload", msg: "is required" }]);
    expect(errorsOf({ ...good, payload: { ...good.payload, provider: [] } })).toEqual([
      { loc: "body.payload.provider", msg: "must be an object" },
    ]);
  });

  test("source: reconciliation is kept as claimed, null counts as omitted", () => {
    const r = validateEvent({ ...good, source: "reconciliation" }, "body");
    expect(r.ok && r.event.source).toBe("reconciliation");
    const n = validateEvent({ ...good, source: null }, "body");
    expect(n.ok && n.event.source).toBe("collector");
  });

  test("the NUL character, which PostgreSQL cannot store, is refused anywhere, named where it is", () => {
    expect(
      errorsOf({
        ...good,
        event_id: "\u0000",
        resource_id: "a\u0000b",
        payload: { ...good.payload, provider: { x: ["ok", "\u0000"] } },
      }),
    ).toEqual([
      { loc: "body.event_id", msg: "must not contain the NUL character" },
      { loc: "body.resource_id", msg: "must not contain the NUL character" },
      { loc: "body.payload.provider.x.1", msg: "must not contain the NUL character" },
    ]);
    expect(errorsOf({ ...good, "ev\u0000": 1, payload: { ...good.payload, "k\u0000": 1 } })).toEqual([
      { loc: "body.ev\\u0000", msg: "is not a member of an event" },
      { loc: "body.payload.k\\u0000", msg: "has a member name that must not contain the NUL character" },
    ]);
  });

  test("lone UTF-16 surrogates, which PostgreSQL cannot store either, are refused in every member", () => {
    const lone = "x\ud800";
    const errors = errorsOf({
      ...good,
      event_id: lone,
      platform: lone,
      cloud: "\udfff",
      resource_type: lone,
      resource_id: lone,
      project_id: lone,
      payload: { state: lone, size: good.payload.size },
    });
    const msg = "must be well-formed Unicode (a lone UTF-16 surrogate cannot be stored)";
    expect(errors).toEqual([
      { loc: "body.event_id", msg },
      { loc: "body.platform", msg },
      { loc: "body.cloud", msg },
      { loc: "body.resource_type", msg },
      { loc: "body.resource_id", msg },
      { loc: "body.project_id", msg },
      { loc: "body.payload.state", msg },
    ]);
    expect(
      errorsOf({ ...good, payload: { ...good.payload, size: { ...good.payload.size, type: "\udc00" } } }),
    ).toEqual([{ loc: "body.payload.size.type", msg }]);
    expect(errorsOf({ ...good, payload: { ...good.payload, provider: { "\ud83d": 1 } } })).toEqual([
      { loc: "body.payload.provider.\\ud83d", msg: `has a member name that ${msg}` },
    ]);
    // A surrogate pair is one character and is stored as such.
    expect(
      errorsOf({ ...good, resource_id: "😀", payload: { ...good.payload, provider: { "😀": "😀" } } }),
    ).toEqual([]);
  });

  test("a timestamp whose UTC instant leaves the years 0001 to 9999 is refused with a clear message", () => {
    const msg = "must fall within the years 0001 to 9999 once its offset is applied (UTC)";
    expect(errorsOf({ ...good, timestamp: "9999-12-31T23:00:00-01:00" })).toEqual([
      { loc: "body.timestamp", msg },
    ]);
    expect(errorsOf({ ...good, timestamp: "9999-12-31T23:59:59.999+00:00" })).toEqual([]);
    expect(errorsOf({ ...good, timestamp: "9999-12-31T22:59:59-01:00" })).toEqual([]);
  });

  test("a payload nests at most 32 levels deep; deeper, however deep, is refused without recursing", () => {
    let ok: JsonObject = { leaf: 1 };
    for (let i = 2; i < 32; i++) ok = { a: ok };
    expect(errorsOf({ ...good, payload: { ...good.payload, provider: ok } })).toEqual([]);
    const msg = "must not nest objects and arrays more than 32 levels deep";
    expect(errorsOf({ ...good, payload: { ...good.payload, provider: { a: ok } } })).toEqual([
      { loc: "body.payload", msg },
    ]);
    const deep = JSON.parse(`${'{"a":['.repeat(100_000)}${"]}".repeat(100_000)}`);
    expect(errorsOf({ ...good, payload: { ...good.payload, size: deep } })).toEqual([
      { loc: "body.payload", msg },
    ]);
  });

  test("not an object", () => {
    expect(errorsOf([good])).toEqual([{ loc: "body", msg: "must be an object" }]);
    expect(errorsOf("x")).toEqual([{ loc: "body", msg: "must be an object" }]);
  });
});

// Property tests.
const part = fc.stringMatching(/^[a-z0-9_]{1,8}$/);
const eventType = fc
  .tuple(part, fc.array(part, { minLength: 1, maxLength: 3 }))
  .map(([a, r]) => [a, ...r].join("."));
const name = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s !== "meta" && s !== "partner");
const instant = fc
  .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) })
  .map((ms) => new Date(ms).toISOString());
const jsonObject: fc.Arbitrary<JsonObject> = fc.dictionary(
  fc.string({ maxLength: 8 }),
  fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.boolean()),
  { maxKeys: 4 },
);
const validEvent = fc.record({
  event_id: fc.string({ minLength: 1, maxLength: 256 }),
  timestamp: instant,
  event_type: eventType,
  platform: name,
  cloud: name,
  resource_type: name,
  resource_id: name,
  project_id: name,
  source: fc.constantFrom("collector", "reconciliation"),
  payload: fc.record({
    state: fc.string({ minLength: 1, maxLength: 20 }),
    size: jsonObject,
    provider: jsonObject,
  }),
});

const breakers: Record<string, unknown[]> = {
  event_id: ["", 5, "e".repeat(257), null],
  timestamp: ["2026-13-01T00:00:00Z", "2026-01-01", 0],
  event_type: ["a", "A.b", "a..b", "x".repeat(513), 3],
  platform: ["", "meta", "partner", "p".repeat(513), {}],
  cloud: ["", "meta", "partner", "c".repeat(513)],
  resource_type: ["", false],
  resource_id: ["", "r".repeat(513)],
  project_id: ["", []],
  source: ["api", 1, ""],
  payload: ["x", [], null],
};

describe("validateEvent: properties", () => {
  test("every valid event passes and comes back member for member", () => {
    fc.assert(
      fc.property(validEvent, (item) => {
        const r = validateEvent(item, "body.0");
        expect(r.ok).toBe(true);
        if (r.ok) expect(r.event).toEqual(item);
      }),
    );
  });

  test("breaking any set of members reports exactly those members, all at once", () => {
    const members = Object.keys(breakers);
    fc.assert(
      fc.property(validEvent, fc.subarray(members, { minLength: 1 }), fc.nat(), (item, broken, pick) => {
        const bad: Record<string, unknown> = { ...item };
        for (const m of broken) {
          const choices = breakers[m] ?? [];
          bad[m] = choices[pick % choices.length];
        }
        const r = validateEvent(bad, "body.4");
        expect(r.ok).toBe(false);
        if (r.ok) return;
        const locs = new Set(r.errors.map((e) => e.loc.split(".")[2]));
        expect([...locs].sort()).toEqual([...broken].sort());
        for (const e of r.errors) expect(e.loc.startsWith("body.4.")).toBe(true);
      }),
    );
  });

  test("a refusal never quotes the submitted value", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 513, maxLength: 700 }), (long) => {
        const r = validateEvent({ ...good, event_type: long, resource_id: long }, "body");
        expect(r.ok).toBe(false);
        if (!r.ok) for (const e of r.errors) expect(e.msg.length).toBeLessThan(120);
      }),
    );
  });
});
