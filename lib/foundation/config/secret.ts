const redacted = "[redacted]";

/**
 * A secret read from the environment. It prints, serializes and inspects as `[redacted]`, so putting a
 * config object into a log line or an error cannot leak it; `reveal()` is the one way to the value and
 * belongs at the point where the secret is handed to a driver.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
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
