import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Daemon } from "../process/daemon.ts";
import { makeTempDir } from "../process/temp-dir.ts";
import { waitFor } from "../process/wait-for.ts";

/** What a page did in the browser: every console error, uncaught exception and failed load. */
interface PageRender {
  errors: string[];
}

class ChromiumMissingError extends Error {
  override name = "ChromiumMissingError";
}

/** Debian's chromium, or null when it is not installed (`scripts/setup.sh` installs it). */
export function chromiumPath(): string | null {
  return Bun.which("chromium");
}

interface CdpMessage {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** A minimal DevTools protocol client over the browser's WebSocket. */
class Cdp {
  private next = 1;
  private readonly pending = new Map<
    number,
    { resolve: (r: CdpMessage) => void; reject: (e: Error) => void }
  >();
  private readonly listeners: ((message: CdpMessage) => void)[] = [];

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as CdpMessage;
      if (message.id !== undefined) {
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error !== undefined) waiter?.reject(new Error(message.error.message));
        else waiter?.resolve(message);
      } else for (const listen of this.listeners) listen(message);
    });
  }

  static connect(url: string): Promise<Cdp> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.addEventListener("open", () => resolve(new Cdp(socket)));
      socket.addEventListener("error", () => reject(new Error(`cannot reach the browser at ${url}`)));
    });
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<CdpMessage> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(
        JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) }),
      );
    });
  }

  on(listen: (message: CdpMessage) => void): void {
    this.listeners.push(listen);
  }

  close(): void {
    this.socket.close();
  }
}

function describeEvent(message: CdpMessage): string | null {
  const params = message.params ?? {};
  if (
    message.method === "Runtime.consoleAPICalled" &&
    (params.type === "error" || params.type === "assert")
  ) {
    const args = (params.args as { value?: unknown; description?: string }[] | undefined) ?? [];
    return `console.${String(params.type)}: ${args.map((a) => a.description ?? String(a.value)).join(" ")}`;
  }
  if (message.method === "Runtime.exceptionThrown") {
    const details = params.exceptionDetails as { text?: string; exception?: { description?: string } };
    return `uncaught: ${details.exception?.description ?? details.text ?? "an exception"}`;
  }
  if (message.method === "Log.entryAdded") {
    const entry = params.entry as { level?: string; text?: string; url?: string };
    if (entry.level === "error") return `${entry.text ?? "an error"}${entry.url ? ` (${entry.url})` : ""}`;
  }
  return null;
}

/**
 * Opens a local HTML file in headless Chromium (its own profile in a harness temp dir, removed after),
 * waits for the load, and returns every console error, uncaught exception and failed load the page
 * caused; with `screenshot`, writes a PNG of the whole page there.
 */
export async function renderInChromium(
  file: string,
  options: { screenshot?: string; width?: number } = {},
): Promise<PageRender> {
  const binary = chromiumPath();
  if (binary === null) throw new ChromiumMissingError("chromium is not installed: run scripts/setup.sh");
  const dir = makeTempDir("chromium");
  const log = join(dir.path, "chromium.log");
  const browser = new Daemon({
    name: "chromium",
    command: binary,
    args: [
      "--headless",
      // Root cannot use the sandbox; the page is our own file.
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--hide-scrollbars",
      `--user-data-dir=${dir.sub("profile")}`,
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      "about:blank",
    ],
    logFile: log,
    // Everything Chromium writes (profile, crash reports, shared memory files) stays in the temp dir.
    env: {
      HOME: dir.path,
      TMPDIR: dir.path,
      XDG_CONFIG_HOME: join(dir.path, "config"),
      XDG_CACHE_HOME: join(dir.path, "cache"),
    },
  });
  let cdp: Cdp | undefined;
  try {
    let endpoint = "";
    await browser.waitReady(() => {
      endpoint = /DevTools listening on (ws:\S+)/.exec(readFileSync(log, "utf8"))?.[1] ?? "";
      return endpoint !== "";
    }, 30_000);
    cdp = await Cdp.connect(endpoint);
    const client = cdp;
    const errors: string[] = [];
    let loaded = false;
    client.on((message) => {
      if (message.method === "Page.loadEventFired") loaded = true;
      const error = describeEvent(message);
      if (error !== null) errors.push(error);
    });
    const target = await client.send("Target.createTarget", { url: "about:blank" });
    const attached = await client.send("Target.attachToTarget", {
      targetId: target.result?.targetId,
      flatten: true,
    });
    const session = String(attached.result?.sessionId);
    for (const domain of ["Runtime.enable", "Log.enable", "Page.enable"])
      await client.send(domain, {}, session);
    await client.send(
      "Emulation.setDeviceMetricsOverride",
      { width: options.width ?? 900, height: 1000, deviceScaleFactor: 1, mobile: false },
      session,
    );
    await client.send("Page.navigate", { url: `file://${resolve(file)}` }, session);
    await waitFor(() => loaded, {
      timeoutMs: 30_000,
      onTimeout: () => new Error(`${file} did not load in 30 s`),
    });
    // Errors raised by the load itself arrive just after the event.
    await Bun.sleep(200);
    if (options.screenshot !== undefined) {
      const shot = await client.send(
        "Page.captureScreenshot",
        { format: "png", captureBeyondViewport: true },
        session,
      );
      writeFileSync(options.screenshot, Buffer.from(String(shot.result?.data), "base64"));
    }
    return { errors };
  } finally {
    cdp?.close();
    await browser.stop();
    dir.remove();
  }
}
