import { beforeAll, expect, test } from "bun:test";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { services } from "../test-services.ts";
import { type RabbitmqService, startRabbitmq } from "./rabbitmq.ts";

// A private node's stop (processes, dir, epmd registration) is tested in services.test.ts, where two
// nodes start at once: each node start costs seconds.
let rabbit: RabbitmqService;

beforeAll(async () => {
  rabbit = await services.rabbitmq();
}, 90_000);

async function roundTrip(url: string, body: string): Promise<string> {
  const client = new AMQPClient(url);
  await client.connect();
  try {
    const channel = await client.channel();
    await channel.confirmSelect();
    await channel.queueDeclare("round-trip", { durable: false });
    await channel.basicPublish("", "round-trip", body);
    return await new Promise<string>((resolve, reject) => {
      channel
        .basicConsume("round-trip", { noAck: false }, async (message) => {
          await message.ack();
          resolve(message.bodyToString() ?? "");
        })
        .catch(reject);
    });
  } finally {
    await client.close();
  }
}

test("a message published in a fresh vhost is consumed there", async () => {
  const url = await rabbit.createVhost();
  expect(new URL(url).pathname).toMatch(/^\/svc_test_[0-9a-f]{12}$/);
  expect(await roundTrip(url, "hello")).toBe("hello");
});

test("vhosts are separate", async () => {
  const [a, b] = await Promise.all([rabbit.createVhost(), rabbit.createVhost()]);
  const client = new AMQPClient(a);
  await client.connect();
  const channel = await client.channel();
  await channel.queueDeclare("only-in-a", { durable: false });
  await client.close();
  const other = new AMQPClient(b);
  await other.connect();
  const probe = await other.channel();
  // A passive declare of a queue that does not exist closes the channel with 404.
  await expect(probe.queueDeclare("only-in-a", { passive: true })).rejects.toThrow(/NOT_FOUND/);
  await other.close();
});

test("an external broker from SVC_TEST_AMQP_URL gets its test vhosts deleted at stop", async () => {
  const external = await startRabbitmq({
    SVC_TEST_AMQP_URL: rabbit.url,
    SVC_TEST_AMQP_MANAGEMENT_URL: rabbit.managementUrl,
  });
  expect(external.external).toBe(true);
  const url = await external.createVhost();
  expect(await roundTrip(url, "x")).toBe("x");
  await external.stop();
  const client = new AMQPClient(url);
  await expect(client.connect()).rejects.toThrow();
});
