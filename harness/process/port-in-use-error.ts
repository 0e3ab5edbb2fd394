/** A daemon could not bind the port it was given: its start is retried on fresh ports. */
export class PortInUseError extends Error {
  override readonly name = "PortInUseError";
}

/** Runs `start` up to `attempts` times while it fails with `PortInUseError` (a race with another process). */
export async function retryOnPortInUse<T>(start: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (!(error instanceof PortInUseError) || attempt >= attempts) throw error;
    }
  }
}
