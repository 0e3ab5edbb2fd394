import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { novaSamples } from "../../../fixtures/oslo/samples.ts";
import { encodeEnvelope } from "../oslo/envelope.ts";
import { dumpLine, redactDeep } from "./dump-line.ts";

const where = { exchange: "nova", routingKey: "notifications.info" };
const line = (body: string) => JSON.parse(dumpLine({ ...where, body: new TextEncoder().encode(body) }));

describe("--dump lines", () => {
  test("a notification is printed with its inner message, secrets redacted at any depth and in any case", () => {
    const message = {
      ...novaSamples.create,
      _context_auth_token: "tok-123",
      payload: {
        instance_id: "i-1",
        block_devices: [{ Connection_Info: { target: "iqn" } }],
        metadata: { admin_Password: "hunter2", nested: { api_secret_key: "s" } },
        image_ref_url: "http://user:pw@image.example/x",
      },
    };
    const out = line(encodeEnvelope(message));
    expect(out.exchange).toBe("nova");
    expect(out.routing_key).toBe("notifications.info");
    expect(out.oslo_version).toBe("2.0");
    expect(out.message.event_type).toBe("compute.instance.create.end");
    expect(out.message._context_auth_token).toBe("[redacted]");
    expect(out.message.payload.block_devices[0].Connection_Info).toBe("[redacted]");
    expect(out.message.payload.metadata.admin_Password).toBe("[redacted]");
    expect(out.message.payload.metadata.nested.api_secret_key).toBe("[redacted]");
    expect(out.message.payload.image_ref_url).toBe("http://user:[redacted]@image.example/x");
    expect(JSON.stringify(out)).not.toMatch(/tok-123|hunter2|iqn/);
  });

  test("a body that is not JSON is reported by size only", () => {
    expect(line("password=hunter2 and more")).toEqual({
      exchange: "nova",
      routing_key: "notifications.info",
      body_bytes: 25,
      problem: "the body is not JSON",
    });
  });

  test("an inner message that is not JSON is reported by size only", () => {
    const body = JSON.stringify({ "oslo.version": "2.0", "oslo.message": '{"password": "hunter2", "cut' });
    const out = line(body);
    expect(out.problem).toBe("oslo.message is not JSON");
    expect(out.message_bytes).toBe(28);
    expect(JSON.stringify(out)).not.toContain("hunter2");
  });

  test("a JSON body that is not an oslo 2.0 envelope gets a 512-byte preview, redacted before the cut", () => {
    const body = JSON.stringify({
      "oslo.version": "1.0",
      "oslo.message": JSON.stringify({ password: "hunter2", token: "t", payload: { x: "y".repeat(2000) } }),
      Secret: "s3",
    });
    const out = line(body);
    expect(out.problem).toBe("not an oslo 2.0 envelope");
    expect(Buffer.byteLength(out.preview)).toBeLessThanOrEqual(512);
    expect(out.preview).toContain('\\"password\\":\\"[redacted]\\"');
    expect(out.preview).not.toMatch(/hunter2|s3/);
  });

  test("a cut-off inner message naming a secret is withheld in a preview", () => {
    const out = line(
      JSON.stringify({ "oslo.version": "1.0", "oslo.message": '{"db_password": "hunter2", "x' }),
    );
    expect(out.preview).toBe('{"oslo.version":"1.0","oslo.message":"[redacted]"}');
  });

  test("the preview never splits a character", () => {
    const out = line(JSON.stringify({ note: "é".repeat(600) }));
    expect(Buffer.byteLength(out.preview)).toBeLessThanOrEqual(512);
    expect(out.preview).not.toContain("\uFFFD");
  });

  test("no value under a secret-looking name survives, whatever the document", () => {
    const secretKey = fc.constantFrom(
      "password",
      "X-Auth-Token",
      "client_secret",
      "connection_info",
      "PASSWORD_2",
    );
    const doc = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.string(),
        fc.integer(),
        fc.array(tie("node"), { maxLength: 3 }),
        fc.dictionary(fc.oneof(fc.string(), secretKey), tie("node"), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(doc, (value) => {
        const walk = (v: unknown): void => {
          if (Array.isArray(v)) v.forEach(walk);
          else if (typeof v === "object" && v !== null)
            for (const [k, m] of Object.entries(v)) {
              if (/password|token|secret|connection_info/i.test(k)) expect(m).toBe("[redacted]");
              else walk(m);
            }
        };
        walk(redactDeep(value));
      }),
    );
  });
});
