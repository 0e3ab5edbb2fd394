/**
 * The Origin allowlist of `/api/v1/ws` (`--ws-allowed-origins`, decision 354). Browsers always send
 * Origin on a WebSocket handshake, so the list is what stops another site's page from reading the
 * stream with a user's network access; a request without Origin comes from a program, not a page,
 * and is allowed (the list is no defence against programs, which can send any Origin).
 */
export function originAllowed(origin: string | null, allowed: readonly string[]): boolean {
  if (origin === null) return true;
  if (allowed.includes("*")) return true;
  const normalised = URL.canParse(origin) ? new URL(origin).origin : origin;
  return allowed.some((entry) => (URL.canParse(entry) ? new URL(entry).origin : entry) === normalised);
}
