import { describe, expect, test } from "bun:test";
import { consume } from "./consume.ts";

describe("consume", () => {
  test("hands each item over in order and returns what the generator returns", async () => {
    async function* numbers(): AsyncGenerator<number, string> {
      yield 1;
      yield 2;
      return "done";
    }
    const seen: number[] = [];
    expect(await consume(numbers(), async (n) => void seen.push(n))).toBe("done");
    expect(seen).toEqual([1, 2]);
  });

  test("closes the generator when the consumer fails", async () => {
    let closed = false;
    async function* numbers(): AsyncGenerator<number, string> {
      try {
        yield 1;
        yield 2;
        return "done";
      } finally {
        closed = true;
      }
    }
    const failing = consume(numbers(), async () => {
      throw new Error("the database refused");
    });
    await expect(failing).rejects.toThrow("the database refused");
    expect(closed).toBe(true);
  });
});
