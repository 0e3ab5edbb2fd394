import { expect, test } from "bun:test";
import { parsePeriod } from "../../foundation/time/period.ts";
import { generateMonth } from "./generate-month.ts";
import { entryLines, monthStream } from "./month-stream.ts";
import { streamEntryCodec } from "./stream-entry-codec.ts";

test("an entry read back from a sort run renders the same line and sorts by the same key", () => {
  const month = generateMonth({ seed: 6, period: parsePeriod("2026-10"), cloud: "c", scale: { tenants: 3 } });
  const codec = streamEntryCodec(new Map(month.tenants.map((t) => [t.project_id, t])));
  for (const entry of monthStream(month, []).published) {
    const back = codec.decode(codec.encode(entry));
    expect(back.key).toBe(entry.key);
    expect(back.billable).toBe(entry.billable);
    expect(back.input.step).toEqual(entry.input.step);
    expect(entryLines(back)).toEqual(entryLines(entry));
  }
});
