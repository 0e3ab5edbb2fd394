/**
 * A refusal of an engine command: the caller's mistake or a state that forbids the command (an
 * unknown run, a finalized month, another run in progress). The command prints its message as one
 * line and exits 1; nothing stored changes.
 */
export class EngineRefusal extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "EngineRefusal";
  }
}
