import { expect, test } from "bun:test";
import { shared } from "./test-services.ts";

function fakeServices() {
  const made: { id: number; alive: boolean; stopped: boolean }[] = [];
  const get = shared(
    async () => {
      const service = { id: made.length, alive: true, stopped: false, stop: async () => {} };
      service.stop = async () => {
        service.stopped = true;
      };
      made.push(service);
      return service;
    },
    (service) => service.alive,
  );
  return { made, get };
}

test("a shared service starts once and is handed to every caller while it lives", async () => {
  const { made, get } = fakeServices();
  const [a, b] = await Promise.all([get(), get()]);
  expect(a).toBe(b);
  expect(await get()).toBe(a);
  expect(made.length).toBe(1);
});

test("a shared service found dead is stopped and started again, once for concurrent callers", async () => {
  const { made, get } = fakeServices();
  const first = await get();
  first.alive = false;
  const [a, b] = await Promise.all([get(), get()]);
  expect(a).toBe(b);
  expect(a.id).toBe(1);
  expect(first.stopped).toBe(true);
  expect(made.length).toBe(2);
});
