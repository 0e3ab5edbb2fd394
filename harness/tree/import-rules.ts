/**
 * The rules of the tree's imports (decision 13), as a pure check over the import graph:
 * - layers: `lib/` imports only `lib/`; the harness and fixtures sit on it; scenarios on those; the
 *   programs (`cmd/`), benches and scripts on top. Nothing imports a layer above its own. A test file
 *   may also use the harness and fixtures (that is what they are for), never a program or a bench.
 * - sides: `lib/foundation` imports no side; `lib/billing` and `lib/network` import the foundation and
 *   themselves, never each other. This holds for test files as well.
 * - no circles: no file reaches itself through its imports, and no area (a folder under a side, or a
 *   folder of the harness) reaches itself through the imports of its non-test files.
 */
import { circles, type ImportEdge } from "./import-graph.ts";

export const layers = {
  lib: 0,
  harness: 1,
  fixtures: 1,
  scenarios: 2,
  cmd: 3,
  bench: 3,
  scripts: 3,
} as const;
type Layer = keyof typeof layers;

const sides = ["foundation", "billing", "network"] as const;
type Side = (typeof sides)[number];
const allowedSides: Record<Side, readonly Side[]> = {
  foundation: ["foundation"],
  billing: ["foundation", "billing"],
  network: ["foundation", "network"],
};

const isTest = (path: string) => path.endsWith(".test.ts");
const layerOf = (path: string): Layer | undefined => {
  const top = path.split("/")[0] ?? "";
  return top in layers ? (top as Layer) : undefined;
};
const sideOf = (path: string): Side | undefined => {
  const [top, side] = path.split("/");
  return top === "lib" && (sides as readonly string[]).includes(side ?? "") ? (side as Side) : undefined;
};

/** The folder an import between areas is counted at: `lib/billing/engine`, `harness/scenario`, `cmd`. */
export function areaOf(path: string): string {
  const parts = path.split("/");
  const depth = parts[0] === "lib" ? 3 : parts[0] === "harness" ? 2 : 1;
  return parts.slice(0, Math.min(depth, parts.length - 1)).join("/");
}

export interface ImportViolation {
  rule: "layer" | "side" | "unplaced" | "file circle" | "area circle";
  text: string;
}

export function importViolations(edges: readonly ImportEdge[]): ImportViolation[] {
  const found: ImportViolation[] = [];
  for (const { from, to } of edges) {
    // The package's manifest is data any layer may read (the version `--version` prints, decision 47).
    if (to === "package.json") continue;
    const fromLayer = layerOf(from);
    const toLayer = layerOf(to);
    if (fromLayer === undefined || toLayer === undefined) {
      found.push({ rule: "unplaced", text: `${from} -> ${to}: outside the known top-level folders` });
      continue;
    }
    const testAllowed = isTest(from) && (toLayer === "harness" || toLayer === "fixtures");
    if (layers[toLayer] > layers[fromLayer] && !testAllowed) {
      found.push({ rule: "layer", text: `${from} -> ${to}: ${fromLayer} may not import ${toLayer}` });
    }
    const fromSide = sideOf(from);
    const toSide = sideOf(to);
    if (fromLayer === "lib" && fromSide === undefined) {
      found.push({ rule: "unplaced", text: `${from}: lib/ holds only ${sides.join(", ")}` });
    } else if (fromSide !== undefined && toSide !== undefined && !allowedSides[fromSide].includes(toSide)) {
      found.push({ rule: "side", text: `${from} -> ${to}: ${fromSide} may not import ${toSide}` });
    }
  }
  for (const circle of circles(edges)) found.push({ rule: "file circle", text: circle.join(" -> ") });
  const areaEdges = edges
    .filter((e) => !isTest(e.from) && areaOf(e.from) !== areaOf(e.to))
    .map((e) => ({ from: areaOf(e.from), to: areaOf(e.to), typeOnly: e.typeOnly }));
  for (const circle of circles(areaEdges)) found.push({ rule: "area circle", text: circle.join(" -> ") });
  return found;
}
