import { Elysia } from "elysia";
import { ForbiddenError, SvcError, ValidationError } from "../../foundation/errors/svc-error.ts";
import type { Publication } from "./publication.ts";

const factorRule = "factor must be a JSON object with a non-negative number member factor";

/**
 * A request a browser page sent: browsers add `Origin` to every cross-site and to every non-GET
 * request, and `Sec-Fetch-Site` to every request; curl and scripts send neither (decision 235).
 */
export function refuseBrowser(request: Request): void {
  const site = request.headers.get("sec-fetch-site");
  if (request.headers.get("origin") !== null || (site !== null && site !== "none")) {
    throw new ForbiddenError("the control endpoint refuses requests sent by a browser page");
  }
}

function mediaType(request: Request): string | null {
  const header = request.headers.get("content-type");
  return header === null ? null : (header.split(";")[0] ?? "").trim().toLowerCase();
}

/** The factor of a `PUT /clock` body, or the stated 400. */
function readFactor(text: string): number {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ValidationError(factorRule);
  }
  const factor =
    typeof body === "object" && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>).factor
      : undefined;
  if (typeof factor !== "number" || !Number.isFinite(factor) || factor < 0) {
    throw new ValidationError(factorRule);
  }
  return factor;
}

/**
 * The control routes of a `run` or `replay` on the bus (docs/simulator.md#control-endpoint). Bodies
 * are read here, not by the framework, so a `PUT /clock` sent as curl's default form type is still
 * read as the JSON it is, and `POST /release` decides on its media type itself.
 */
export function controlRoutes(publication: Publication) {
  return new Elysia({ name: "svc-simulator-control" })
    .get("/healthz", () => new Response("ok", { headers: { "content-type": "text/plain; charset=utf-8" } }))
    .get("/clock", () => publication.document())
    .put(
      "/clock",
      async ({ request }) => {
        refuseBrowser(request);
        publication.clock.rebase(readFactor(await request.text()));
        return publication.document();
      },
      { parse: "none" },
    )
    .post(
      "/release",
      async ({ request }) => {
        refuseBrowser(request);
        const body = await request.text();
        const type = mediaType(request);
        if (body !== "" && type !== "application/json") {
          throw new SvcError(
            "unsupported_media_type",
            "POST /release takes no body or an application/json one",
          );
        }
        return publication.release();
      },
      { parse: "none" },
    );
}
