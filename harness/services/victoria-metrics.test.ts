import { beforeAll, expect, test } from "bun:test";
import { services } from "../test-services.ts";
import { expectStopLeavesNothing } from "./stop-leaves-nothing.ts";
import { uniqueName } from "./unique-name.ts";
import { startVictoriaMetrics, type VictoriaMetricsService } from "./victoria-metrics.ts";

let vm: VictoriaMetricsService;

beforeAll(async () => {
  vm = await services.victoriaMetrics();
}, 60_000);

interface QueryReply {
  status: string;
  data: { result: { metric: Record<string, string>; value: [number, string] }[] };
}

test("a sample imported in Prometheus text format is read back by a query", async () => {
  // Each test its own metric name: the store is shared by the run.
  const metric = uniqueName("svc_test_bytes");
  const at = Date.now();
  const imported = await fetch(`${vm.url}/api/v1/import/prometheus`, {
    method: "POST",
    body: `${metric}{chassis="chassis-1"} 42 ${at}\n`,
  });
  expect(imported.status).toBe(204);
  await vm.flush();
  // A new series becomes searchable about a second after its import, even after a flush (1.79).
  let reply: QueryReply = { status: "none", data: { result: [] } };
  for (let attempt = 0; attempt < 50 && reply.data.result.length === 0; attempt++) {
    if (attempt > 0) await Bun.sleep(100);
    const response = await fetch(`${vm.url}/api/v1/query?query=${metric}&time=${at / 1000}`);
    reply = (await response.json()) as QueryReply;
  }
  expect(reply.status).toBe("success");
  expect(reply.data.result).toHaveLength(1);
  expect(reply.data.result[0]?.metric).toEqual({ __name__: metric, chassis: "chassis-1" });
  expect(reply.data.result[0]?.value[1]).toBe("42");
  const exported = await (await fetch(`${vm.url}/api/v1/export?match[]=${metric}`)).json();
  expect(exported).toEqual({
    metric: { __name__: metric, chassis: "chassis-1" },
    values: [42],
    timestamps: [at],
  });
}, 30_000);

test("an external store from SVC_TEST_VM_URL is used as is", async () => {
  const external = await startVictoriaMetrics({ SVC_TEST_VM_URL: `${vm.url}/` });
  expect(external.url).toBe(vm.url);
  expect(external.external).toBe(true);
  await external.stop();
  expect((await fetch(`${vm.url}/health`)).ok).toBe(true);
});

test("a private store's stop removes its process and dir", async () => {
  const other = await startVictoriaMetrics({});
  expect((await expectStopLeavesNothing(other)).length).toBe(1);
}, 30_000);
