import { describe, expect, test } from "bun:test";
import { createApp } from "../../foundation/http/create-app.ts";
import { createLogger } from "../../foundation/log/logger.ts";
import { controlRoutes } from "./control-routes.ts";
import { Publication } from "./publication.ts";
import { VirtualClock } from "./virtual-clock.ts";

const logger = createLogger({ service: "svc-simulator-test", level: "ERROR" });
const from = "2026-10-01T00:00:00.000Z";
const to = "2026-11-01T00:00:00.000Z";

function setup(holdsBack = true) {
  const clock = new VirtualClock(Date.parse(from), 744);
  const publication = new Publication(clock, {
    periodFrom: from,
    periodTo: to,
    total: 10,
    held: 3,
    holdsBack,
  });
  const app = createApp({ service: "svc-simulator", logger }).use(controlRoutes(publication));
  const call = (
    method: string,
    path: string,
    init: { body?: string; headers?: Record<string, string> } = {},
  ) => app.handle(new Request(`http://localhost${path}`, { method, ...init }));
  return { publication, clock, call };
}

async function problem(response: Response) {
  return { status: response.status, detail: ((await response.json()) as { detail?: string }).detail };
}

describe("control routes", () => {
  test("GET /healthz answers ok and GET /clock the whole document", async () => {
    const { call } = setup();
    const health = await call("GET", "/healthz");
    expect([health.status, await health.text()]).toEqual([200, "ok"]);
    const doc = (await (await call("GET", "/clock")).json()) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual([
      "virtual_now",
      "factor",
      "published",
      "total",
      "held",
      "holding",
      "period_from",
      "period_to",
    ]);
    expect(doc).toMatchObject({ factor: 744, published: 0, total: 10, held: 3, holding: false });
  });

  test("PUT /clock rebases on the instant reached and answers the document", async () => {
    const { call, clock } = setup();
    const before = clock.now();
    const response = await call("PUT", "/clock", {
      body: JSON.stringify({ factor: 0 }),
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { factor: number; virtual_now: string };
    expect(doc.factor).toBe(0);
    expect(Date.parse(doc.virtual_now)).toBeGreaterThanOrEqual(Math.floor(before));
    // curl's default form media type is read as the JSON it is.
    const curl = await call("PUT", "/clock", {
      body: '{"factor": 2.5}',
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(curl.status).toBe(200);
    expect(clock.factor).toBe(2.5);
  });

  test("PUT /clock refuses a body that is not an object with a non-negative factor: 400", async () => {
    const { call, clock } = setup();
    for (const body of ["", "nope", "[]", "null", '{"factor": -1}', '{"factor": "2"}', '{"speed": 2}']) {
      const answer = await problem(await call("PUT", "/clock", { body }));
      expect(answer).toEqual({
        status: 400,
        detail: "factor must be a JSON object with a non-negative number member factor",
      });
    }
    expect(clock.factor).toBe(744);
  });

  test("POST /release answers the document as it stood before, once", async () => {
    const { call, publication } = setup();
    publication.published = 7;
    publication.regularLinesDone();
    const response = await call("POST", "/release");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ holding: true, held: 3, published: 7, total: 10 });
    expect(publication.document()).toMatchObject({ holding: false, held: 0 });
    expect(await problem(await call("POST", "/release"))).toEqual({
      status: 409,
      detail: "the held share was already released",
    });
  });

  test("POST /release takes an application/json body and no body; another media type is 415", async () => {
    const { call, publication } = setup();
    publication.regularLinesDone();
    const wrong = await call("POST", "/release", { body: "go", headers: { "content-type": "text/plain" } });
    expect(wrong.status).toBe(415);
    const json = await call("POST", "/release", {
      body: "{}",
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(json.status).toBe(200);
  });
});

describe("control route refusals", () => {
  test("409 while still publishing and for a run without held-back", async () => {
    const publishing = setup();
    expect(await problem(await publishing.call("POST", "/release"))).toEqual({
      status: 409,
      detail: "the run is still publishing: release once /clock reports holding true",
    });
    const plain = setup(false);
    plain.publication.regularLinesDone();
    expect(await problem(await plain.call("POST", "/release"))).toEqual({
      status: 409,
      detail: "this run holds nothing back: it runs without the held-back switch",
    });
  });

  test("403 for requests a browser page sent, on both changing routes", async () => {
    const { call, publication, clock } = setup();
    publication.regularLinesDone();
    const browsers: Record<string, string>[] = [
      { origin: "http://evil.example" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-origin" },
    ];
    for (const headers of browsers) {
      expect((await call("POST", "/release", { headers })).status).toBe(403);
      expect((await call("PUT", "/clock", { headers, body: '{"factor": 0}' })).status).toBe(403);
    }
    expect(publication.phase).toBe("holding");
    expect(clock.factor).toBe(744);
  });

  test("unknown paths 404, a wrong method 405", async () => {
    const { call } = setup();
    expect((await call("GET", "/nowhere")).status).toBe(404);
    expect((await call("DELETE", "/clock")).status).toBe(405);
  });
});
