import type { FieldError } from "../../../foundation/errors/svc-error.ts";
import type { CanonicalEvent } from "../../events/event.ts";

/**
 * UTF-8 bytes the members of one index key may take together. A B-tree entry holds at most 2704 bytes,
 * and the character limits of the spec (512 each) allow keys of up to 2048 bytes per member when the
 * text is multi-byte; without this bound such an event would fail its whole batch in the database.
 * 2600 leaves room for headers and the timestamp. ASCII keys within the character limits always fit.
 */
export const indexKeyMaxBytes = 2600;

const bytes = (value: string) => Buffer.byteLength(value, "utf8");

/** The complaints of an otherwise valid event whose keys the database could not index (usually none). */
export function indexLimitErrors(event: CanonicalEvent, at: string): FieldError[] {
  // A UTF-16 unit is at most 3 bytes of UTF-8: keys this short fit without counting their bytes.
  const units =
    event.cloud.length +
    Math.max(event.resource_type.length + event.resource_id.length, event.project_id.length);
  if (units * 3 <= indexKeyMaxBytes) return [];
  const errors: FieldError[] = [];
  const cloud = bytes(event.cloud);
  if (cloud + bytes(event.resource_type) + bytes(event.resource_id) > indexKeyMaxBytes) {
    errors.push({
      loc: `${at}.resource_id`,
      msg: `cloud, resource_type and resource_id together must fit in ${indexKeyMaxBytes} bytes of UTF-8`,
    });
  }
  if (cloud + bytes(event.project_id) > indexKeyMaxBytes) {
    errors.push({
      loc: `${at}.project_id`,
      msg: `cloud and project_id together must fit in ${indexKeyMaxBytes} bytes of UTF-8`,
    });
  }
  return errors;
}
