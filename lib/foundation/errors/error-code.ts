/**
 * The one closed list of error codes. Every HTTP error any svc server answers is one of these, and
 * this table is the only place a code meets its status and problem type.
 *
 * The thirteen `urn:svc:error:*` types of the reporting spec, plus `unprocessable` (422: a body the
 * contract admits but a domain rule refuses, such as a meta/partner mismatch or pricing adjustments) and
 * `unsupported_media_type` (415: the simulator's control routes). See docs/decisions/.
 */
export const errorCodes = {
  validation: { status: 400, title: "The request is not valid" },
  unauthorized: { status: 401, title: "No usable credential" },
  forbidden: { status: 403, title: "Not allowed for this credential" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  conflict: { status: 409, title: "Conflicts with the stored state" },
  relation_cycle: { status: 409, title: "The relation would close a cycle" },
  payload_too_large: { status: 413, title: "More than the endpoint takes at once" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  unprocessable: { status: 422, title: "The request breaks a rule" },
  history_too_long: { status: 422, title: "History longer than an unpaginated read answers" },
  result_too_large: { status: 422, title: "Answer larger than the API serves unpaginated" },
  internal: { status: 500, title: "Internal error" },
  not_implemented: { status: 501, title: "Not implemented" },
  unavailable: { status: 503, title: "A dependency is unavailable" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCodes;

export function problemType(code: ErrorCode): string {
  return `urn:svc:error:${code}`;
}

export function statusOf(code: ErrorCode): number {
  return errorCodes[code].status;
}
