/**
 * Readable rows and change events for netview's unit tests: uuids numbered 1, 2, … and the insert
 * of switch `sw<seq>` as the history stores it. Not imported by any program.
 */
import type { ChangeEvent } from "../../lib/network/netview/history/change-event.ts";

/** The uuid numbered `n`: 00000000-0000-0000-0000-00000000000n. */
export const testUuid = (n: number) => `00000000-0000-0000-0000-${String(n).padStart(12, "0")}`;

/** When the test events start: event `seq` is at `testEventsStart` + `seq` seconds. */
export const testEventsStart = Date.parse("2026-11-23T10:00:00.000Z");

/** Switch `sw<seq>` inserted in transaction `seq` on the default cluster's NB, with `overrides`. */
export function testEvent(seq: number, overrides: Partial<ChangeEvent> = {}): ChangeEvent {
  const uuid = testUuid(seq);
  return {
    seq,
    at: new Date(testEventsStart + seq * 1000).toISOString(),
    cluster: "default",
    database: "nb",
    table: "Logical_Switch",
    uuid,
    op: "insert",
    txn: seq,
    resync: false,
    coalesced: false,
    old: null,
    new: { _uuid: uuid, name: `sw${seq}` },
    ...overrides,
  };
}
