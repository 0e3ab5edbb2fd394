import { createServer } from "node:net";

// Ports handed out by this process and not yet released: the kernel may give the same port to two
// successive bind(0) calls once the first probe socket is closed, so the process remembers them.
const issued = new Set<number>();

function probePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port);
        else reject(new Error("bind(0) returned no port"));
      });
    });
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago and that this process has not handed out before.
 * Another process may still take it before our daemon binds it: services therefore confirm that their
 * own daemon listens on it and start again on fresh ports when it does not (see `PortInUseError`).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await probePort();
    if (!issued.has(port)) {
      issued.add(port);
      return port;
    }
  }
  throw new Error("no free TCP port found on 127.0.0.1 after 50 attempts");
}

/** Lets this process hand the port out again (after the daemon that used it has stopped). */
export function releasePort(port: number): void {
  issued.delete(port);
}
