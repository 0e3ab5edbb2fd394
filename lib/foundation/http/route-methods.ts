interface RouteLike {
  method: string;
  path: string;
}

function patternOf(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => {
      if (segment === "*") return ".*";
      if (segment.startsWith(":")) return segment.endsWith("?") ? "[^/]*" : "[^/]+";
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${source}/?$`);
}

/**
 * The methods the app serves on a concrete path; used to tell an unknown path (404) from a known path
 * asked with the wrong method (405, with an `Allow` header).
 */
export function methodsFor(routes: readonly RouteLike[]): (pathname: string) => string[] {
  const compiled = routes
    .filter((r) => r.method !== "WS")
    .map((r) => ({ method: r.method === "ALL" ? "*" : r.method, pattern: patternOf(r.path) }));
  return (pathname) => {
    const methods = new Set<string>();
    for (const r of compiled) if (r.pattern.test(pathname)) methods.add(r.method);
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };
}
