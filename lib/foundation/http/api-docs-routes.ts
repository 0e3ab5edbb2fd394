/**
 * An interactive API page served from the swagger-ui-dist package on disk: nothing is loaded from a
 * CDN, so the page works on an isolated network. Only the three files the page uses are served, by
 * name, so no path reaches the file system from a request. Used by netview and reporting alike. The
 * package is read through `shippedPath`, so that a compiled executable serves its embedded copy.
 */
import { Elysia } from "elysia";
import { NotFoundError } from "../errors/svc-error.ts";
import { shippedPath } from "../process/shipped-path.ts";

const distDir = "node_modules/swagger-ui-dist";

const assets: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

/** The files the page reads at run time, by their repository path (`./svc build` embeds them). */
export const apiDocsFiles = Object.keys(assets).map((file) => `${distDir}/${file}`);

interface ApiDocsOptions {
  /** Names the Elysia plugin, so that two servers' pages never deduplicate each other. */
  service: string;
  title: string;
  /** Where the page is served; its assets are under `<path>/assets/`. */
  path: string;
  /** Where the OpenAPI document is served. */
  specPath: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(options: ApiDocsOptions): string {
  const assetsPath = `${options.path}/assets`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>${escapeHtml(options.title)}</title>
  <link rel="icon" href="${assetsPath}/favicon-32x32.png" />
  <link rel="stylesheet" href="${assetsPath}/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${assetsPath}/swagger-ui-bundle.js"></script>
  <script>
    window.onload = () => { window.ui = SwaggerUIBundle({ url: ${JSON.stringify(options.specPath)}, dom_id: "#swagger-ui" }); };
  </script>
</body>
</html>`;
}

export function apiDocsRoutes(options: ApiDocsOptions) {
  const html = page(options);
  return new Elysia({ name: `${options.service}-docs` })
    .get(
      options.path,
      () => new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } }),
      { detail: { hide: true } },
    )
    .get(
      `${options.path}/assets/:file`,
      ({ params }) => {
        const type = assets[params.file];
        if (type === undefined) throw new NotFoundError("not found");
        return new Response(Bun.file(shippedPath(`${distDir}/${params.file}`)), {
          headers: { "content-type": type, "cache-control": "public, max-age=86400" },
        });
      },
      { detail: { hide: true } },
    );
}
