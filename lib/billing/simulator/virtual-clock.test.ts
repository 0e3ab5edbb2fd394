import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { untilVirtual, VirtualClock } from "./virtual-clock.ts";

function manualWall() {
  let now = 0;
  return { wall: () => now, advance: (ms: number) => (now += ms) };
}

describe("the virtual clock", () => {
  test("runs factor virtual seconds per wall second from its start", () => {
    const w = manualWall();
    const clock = new VirtualClock(1_000_000, 744, w.wall);
    w.advance(1000);
    expect(clock.now()).toBe(1_000_000 + 744_000);
    expect(clock.wallUntil(1_000_000 + 744_000 * 3)).toBe(2000);
  });

  test("a rebase keeps the virtual instant reached and changes only the pace", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 5000 })), {
          maxLength: 20,
        }),
        (steps) => {
          const w = manualWall();
          const clock = new VirtualClock(0, 1, w.wall);
          let expected = 0;
          let factor = 1;
          for (const [wallMs, nextFactor] of steps) {
            w.advance(wallMs);
            expected += wallMs * factor;
            clock.rebase(nextFactor);
            factor = nextFactor;
            expect(clock.now()).toBeCloseTo(expected, 6);
          }
        },
      ),
    );
  });

  test("at factor 0 it stands still, waits forever, and is moved forward only", () => {
    const w = manualWall();
    const clock = new VirtualClock(500, 0, w.wall);
    w.advance(10_000);
    expect(clock.now()).toBe(500);
    expect(clock.wallUntil(600)).toBe(Number.POSITIVE_INFINITY);
    expect(clock.wallUntil(400)).toBe(0);
    clock.advanceTo(700);
    clock.advanceTo(600);
    expect(clock.now()).toBe(700);
  });

  test("untilVirtual at factor 0 moves the clock to the instant at once", async () => {
    const clock = new VirtualClock(0, 0);
    expect(await untilVirtual(clock, 5000, new AbortController().signal)).toBe(true);
    expect(clock.now()).toBe(5000);
  });

  test("a sleeper wakes when the clock is rebased, and gives up when aborted", async () => {
    const clock = new VirtualClock(0, 0.001);
    const controller = new AbortController();
    const waiting = untilVirtual(clock, 60_000, controller.signal);
    clock.rebase(0);
    expect(await waiting).toBe(true);
    clock.rebase(0.0001);
    const stopped = untilVirtual(clock, 120_000, controller.signal);
    controller.abort();
    expect(await stopped).toBe(false);
  });
});
