const redacted = "[redacted]";

/** Secrets shorter than this are not searched for in log text: masking every "ab" would hide the log. */
const minMaskedLength = 4;

/** Every secret text this process read, and a URL secret's password, longest first (decision 18). */
let known: string[] = [];

function remember(text: string): void {
  if (text.length < minMaskedLength || known.includes(text)) return;
  known = [...known, text].sort((a, b) => b.length - a.length);
}

/**
 * The password of a secret shaped like a URL, also when the URL does not parse: the userinfo runs to
 * the last `@`, after a scheme written `scheme://`, `scheme:/` or `scheme//` (a typo the driver then
 * quotes whole), and the password follows its first `:`.
 */
function urlPassword(value: string): string | null {
  const at = value.lastIndexOf("@");
  if (at < 0) return null;
  const userinfo = value.slice(0, at).replace(/^[a-z][a-z0-9+.-]*(?::\/+|\/\/+)/i, "");
  const colon = userinfo.indexOf(":");
  return colon < 0 ? null : userinfo.slice(colon + 1);
}

/**
 * `text` with every secret the process has read masked as `[redacted]`, wherever it stands and
 * whatever shape it has, so a driver that quotes the value it was given (postgres.js puts a URL it
 * cannot parse in `err.input`) cannot carry it into a log line or onto a terminal.
 */
export function maskSecrets(text: string): string {
  let out = text;
  for (const secret of known) if (out.includes(secret)) out = out.replaceAll(secret, redacted);
  return out;
}

/**
 * A secret read from the environment. It prints, serializes and inspects as `[redacted]`, so putting a
 * config object into a log line or an error cannot leak it; `reveal()` is the one way to the value and
 * belongs at the point where the secret is handed to a driver.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    remember(value);
    const password = urlPassword(value);
    if (password !== null) {
      remember(password);
      try {
        remember(decodeURIComponent(password));
      } catch {
        // Not percent-encoded text: the raw form is remembered.
      }
    }
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return redacted;
  }

  toJSON(): string {
    return redacted;
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return redacted;
  }
}
