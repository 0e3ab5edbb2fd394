import { expect, test } from "bun:test";
import { readAhead } from "./read-ahead.ts";

/** A source that records when each item was asked for, relative to the consumer's work. */
function source(n: number, log: string[]) {
  let closed = false;
  return {
    closed: () => closed,
    iterable: {
      [Symbol.asyncIterator]: () => {
        let i = 0;
        return {
          next: async (): Promise<IteratorResult<number>> => {
            log.push(`asked ${i}`);
            return i < n ? { value: i++, done: false } : { value: undefined, done: true };
          },
          return: async (): Promise<IteratorResult<number>> => {
            closed = true;
            return { value: undefined, done: true };
          },
        };
      },
    },
  };
}

test("the next item is asked for before the consumer works on this one; every item once, in order", async () => {
  const log: string[] = [];
  const s = source(3, log);
  const seen: number[] = [];
  for await (const item of readAhead(s.iterable)) {
    log.push(`work ${item}`);
    seen.push(item);
  }
  expect(seen).toEqual([0, 1, 2]);
  expect(log).toEqual(["asked 0", "asked 1", "work 0", "asked 2", "work 1", "asked 3", "work 2"]);
});

test("a consumer that stops early closes the source", async () => {
  const s = source(10, []);
  for await (const item of readAhead(s.iterable)) if (item === 1) break;
  expect(s.closed()).toBe(true);
});
