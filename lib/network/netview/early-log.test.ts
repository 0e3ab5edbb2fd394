import { describe, expect, test } from "bun:test";
import { earlyLog } from "./early-log.ts";

describe("early log", () => {
  test("keeps what is logged before bind, in order, then forwards", () => {
    const seen: string[] = [];
    const early = earlyLog();
    early.log.warn({ remote: "tcp:a" }, "ovsdb session lost");
    early.log.info({ n: 1 }, "synced");
    expect(seen).toEqual([]);
    early.bind({
      info: (o, m) => seen.push(`info ${JSON.stringify(o)} ${m}`),
      warn: (o, m) => seen.push(`warn ${JSON.stringify(o)} ${m}`),
    });
    early.log.warn({ n: 2 }, "after");
    expect(seen).toEqual([
      'warn {"remote":"tcp:a"} ovsdb session lost',
      'info {"n":1} synced',
      'warn {"n":2} after',
    ]);
  });
});
