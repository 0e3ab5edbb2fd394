const acceptable = /^[A-Za-z0-9._:@/+=-]{1,200}$/;

/**
 * The caller's `X-Request-ID` when it is a plausible id (printable, no spaces, at most 200 characters,
 * so it can go into a log line and a header unescaped), otherwise a fresh UUID.
 */
export function requestIdFrom(header: string | null): string {
  return header !== null && acceptable.test(header) ? header : crypto.randomUUID();
}
