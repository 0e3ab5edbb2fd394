import { expect, test } from "bun:test";
import { createServer } from "node:net";
import { freePort, releasePort } from "./free-port.ts";

test("ports handed out by one process are distinct and bindable", async () => {
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  expect(new Set(ports).size).toBe(20);
  const port = ports[0] ?? 0;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  await new Promise((resolve) => server.close(resolve));
  for (const one of ports) releasePort(one);
});
