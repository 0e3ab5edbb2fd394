/**
 * Every notification shape the mapping reads (`fixtures/oslo/`, written after the services' own
 * builders), published through RabbitMQ as the services publish them, consumed by the collector
 * process with its default topics and posted to a Reporting API: what is stored, and how it is
 * counted, shape by shape (issue 32).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backupSamples, snapshotSamples } from "../fixtures/oslo/cinder-copies-samples.ts";
import { novaVersionedSamples } from "../fixtures/oslo/nova-versioned-samples.ts";
import {
  cinderSamples,
  glanceSamples,
  neutronSamples,
  novaSamples,
  octaviaSamples,
  unenvelopedBody,
} from "../fixtures/oslo/samples.ts";
import {
  collectorExchanges,
  readyCollector,
  untilDelivered,
} from "../harness/collector/collector-process.ts";
import { declareExchanges, publishLines, queueDepth } from "../harness/collector/publisher.ts";
import { type ReportingApi, startReportingApi } from "../harness/collector/reporting-api.ts";
import { deliveryOutcomes } from "../harness/collector/simulated-month.ts";
import { services } from "../harness/test-services.ts";
import { encodeEnvelope } from "../lib/billing/oslo/envelope.ts";
import type { NotificationLine } from "../lib/billing/simulator/notification-line.ts";
import type { JsonObject } from "../lib/foundation/json/json-value.ts";
import { expositionTotal } from "../lib/foundation/metrics/exposition-total.ts";

/** The value of one sample, named with its labels as the exposition writes them. */
function expositionValue(exposition: string, sample: string): number | null {
  const line = exposition.split("\n").find((l) => l.startsWith(`${sample} `));
  return line === undefined ? null : Number(line.slice(sample.length + 1));
}

let api: ReportingApi;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-collector-shapes-"));
  api = await startReportingApi(dir);
}, 120_000);
afterAll(async () => {
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * One line per sample, each under a message id of its own (the samples of one service share one):
 * twins are told apart by their request, not their ids.
 */
function lines(exchange: string, samples: Record<string, JsonObject>, routingKey = "notifications.info") {
  return Object.values(samples).map(
    (message): NotificationLine => ({
      exchange,
      routing_key: routingKey,
      body: encodeEnvelope({ ...message, message_id: crypto.randomUUID() }),
    }),
  );
}

const { create: versionedCreate, ...versionedRest } = novaVersionedSamples;
const published: NotificationLine[] = [
  // The versioned create comes first, the legacy twins of the rest first: twins in either order.
  ...lines("nova", { versionedCreate }, "versioned_notifications.info"),
  ...lines("nova", novaSamples),
  ...lines("nova", versionedRest, "versioned_notifications.info"),
  ...lines("platform_a", cinderSamples),
  ...lines("platform_a", snapshotSamples),
  ...lines("platform_a", backupSamples),
  ...lines("neutron", neutronSamples),
  ...lines("glance", glanceSamples),
  ...lines("octavia", octaviaSamples),
  { exchange: "nova", routing_key: "notifications.info", body: unenvelopedBody },
];

/** What must be stored, per resource type and event type: written out from the mapping's table. */
const storedByType = {
  "instance compute.instance.create.end": 1,
  "instance compute.instance.exists": 1,
  "instance compute.instance.finish_resize.end": 1,
  "instance compute.instance.resize.confirm.end": 1,
  "instance compute.instance.resize.revert.end": 1,
  "instance compute.instance.power_off.end": 1,
  "instance compute.instance.power_on.end": 1,
  "instance compute.instance.shelve.end": 1,
  "instance compute.instance.shelve_offload.end": 1,
  "instance compute.instance.unshelve.end": 1,
  "instance compute.instance.soft_delete.end": 1,
  "instance compute.instance.restore.end": 1,
  "instance compute.instance.delete.end": 1,
  "volume volume.create.end": 1,
  "volume volume.attach.end": 1,
  "volume volume.resize.end": 1,
  "volume volume.retype": 1,
  "volume volume.transfer.accept.end": 1,
  "volume volume.delete.end": 1,
  "volume_snapshot snapshot.create.end": 1,
  "volume_snapshot snapshot.delete.end": 1,
  "volume_backup backup.create.end": 1,
  "volume_backup backup.restore.end": 1,
  "volume_backup backup.delete.end": 1,
  "floating_ip floatingip.create.end": 2,
  "floating_ip floatingip.delete.end": 1,
  "image image.create": 1,
  "image image.upload": 1,
  "image image.activate": 1,
  "image image.delete": 1,
  "loadbalancer octavia.loadbalancer.create.end": 3,
  "loadbalancer octavia.loadbalancer.update.end": 3,
  "loadbalancer octavia.loadbalancer.delete.end": 2,
};

test("each shape published through RabbitMQ is stored as its event, each transition of two formats once", async () => {
  const rabbit = await services.rabbitmq();
  const url = await rabbit.createVhost();
  await declareExchanges(url, collectorExchanges);
  const expected = deliveryOutcomes(published, { cloud: api.cloud, exchanges: collectorExchanges });
  // The collector's own defaults: no SVC_OSC_TOPICS, so versioned_notifications.info is bound too.
  const collector = await readyCollector({ dir, amqpUrl: url, api });
  try {
    await publishLines(url, published);
    await untilDelivered(collector, api, expected.events.length);
    expect(await queueDepth(url, "svc-notifications")).toBe(0);
    expect(await api.storedEvents()).toEqual(expected.events);
    const rows = await api.db.sql<{ key: string; count: number }[]>`
      select resource_type || ' ' || event_type as key, count(*)::int as count from events group by 1`;
    expect(Object.fromEntries(rows.map((r) => [r.key, r.count]))).toEqual(storedByType);
    const rejected = await api.db.sql`select reason, errors from rejected_events`;
    expect([...rejected]).toEqual([]);

    const metrics = (await collector.get("/metrics")).text;
    const counted = {
      consumed: expositionTotal(metrics, "svc_collector_consumed_total"),
      skipped: expositionTotal(metrics, "svc_collector_skipped_total"),
      unparseable: expositionTotal(metrics, "svc_collector_unparseable_total"),
    };
    expect(counted).toEqual(expected.expected);
    expect(counted.consumed).toBe(Object.values(storedByType).reduce((a, b) => a + b, 0));
    // Under the type as sent: a versioned twin skipped as itself, a body without envelope named.
    expect(expositionValue(metrics, 'svc_collector_skipped_total{event_type="instance.power_off.end"}')).toBe(
      1,
    );
    expect(
      expositionValue(metrics, 'svc_collector_skipped_total{event_type="compute.instance.create.end"}'),
    ).toBe(1);
    expect(
      expositionValue(
        metrics,
        'svc_collector_unparseable_total{event_type="compute.instance.power_off.end"}',
      ),
    ).toBe(1);
  } finally {
    await collector.daemon.stop();
  }
}, 180_000);
