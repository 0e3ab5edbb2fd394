import type { JsonObject } from "../../foundation/json/json-value.ts";

/**
 * The inner message of an oslo messagingv2 envelope, as every OpenStack service emits it
 * (oslo.messaging's notifier): the members the mapping reads are typed, the rest (notably the
 * `_context_*` members of the request context) travel along in `raw`.
 */
export interface OsloNotification {
  /** The provider's own id; null when the sender gave none (the event id is derived then). */
  message_id: string | null;
  publisher_id: string | null;
  event_type: string;
  priority: string;
  /** As sent: `YYYY-MM-DD HH:MM:SS.ffffff`, UTC without an offset. */
  timestamp: string;
  payload: JsonObject;
  raw: JsonObject;
}

/** The oslo envelope version this code reads and writes. */
export const osloVersion = "2.0";

/** Bodies above this size are acknowledged unread and counted unparseable (docs/oslo-mapping.md#oslo-notifications-to-canonical-events). */
export const maxBodyBytes = 1024 * 1024;

/** Mapped events above this size are acknowledged and counted skipped (docs/oslo-mapping.md#oslo-notifications-to-canonical-events). */
export const maxEventBytes = 64 * 1024;
