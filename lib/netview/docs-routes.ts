/**
 * The interactive API UI at `/api/v1/docs`, served from the swagger-ui-dist package on disk: nothing
 * is loaded from a CDN, so the page works on an isolated network. Only the three files the page uses
 * are served, by name, so no path reaches the file system from a request.
 */
import { dirname, join } from "node:path";
import { Elysia } from "elysia";
import { NotFoundError } from "../errors/svc-error.ts";

const distDir = dirname(Bun.resolveSync("swagger-ui-dist/package.json", import.meta.dir));

const assets: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

const page = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>netview API</title>
  <link rel="icon" href="/api/v1/docs/assets/favicon-32x32.png" />
  <link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.onload = () => { window.ui = SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#swagger-ui" }); };
  </script>
</body>
</html>`;

export function docsRoutes() {
  return new Elysia({ name: "netview-docs" })
    .get(
      "/api/v1/docs",
      () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }),
      {
        detail: { hide: true },
      },
    )
    .get(
      "/api/v1/docs/assets/:file",
      ({ params }) => {
        const type = assets[params.file];
        if (type === undefined) throw new NotFoundError("not found");
        return new Response(Bun.file(join(distDir, params.file)), {
          headers: { "content-type": type, "cache-control": "public, max-age=86400" },
        });
      },
      { detail: { hide: true } },
    );
}
