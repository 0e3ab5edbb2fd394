/**
 * A trace printed as ovn-trace prints it (utilities/ovn-trace.c): `--detailed` (the default),
 * `--summary` and `--minimal`, each after a `# <flow>` line.
 */
import type { NodeType, TraceNode, TraceResult } from "./trace-tree.ts";

const terminal = (t: NodeType) => t === "output" || t === "modify" || t === "action" || t === "error";

function byteLength(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** ovntrace_node_print_details: the default `--detailed` body. */
function printDetailed(nodes: readonly TraceNode[], level = 0): string {
  let out = "";
  nodes.forEach((sub, i) => {
    if (sub.type === "modify") return;
    const more = i !== nodes.length - 1 || sub.alwaysIndent || terminal(sub.type) ? 1 : 0;
    const title = sub.type === "pipeline" || sub.type === "transformation";
    const indent = " ".repeat((level + more) * 4);
    if (title) out += "\n";
    out += `${indent}${sub.text}\n`;
    if (title) out += `${indent}${"-".repeat(byteLength(sub.text))}\n`;
    out += printDetailed(sub.subs, level + 2 * more);
  });
  return out;
}

function prune(nodes: readonly TraceNode[], drop: (t: NodeType) => boolean): TraceNode[] {
  const out: TraceNode[] = [];
  for (const n of nodes) {
    const subs = prune(n.subs, drop);
    if (drop(n.type)) out.push(...subs);
    else out.push({ ...n, subs });
  }
  return out;
}

function printSummary(nodes: readonly TraceNode[], level = 0): string {
  let out = "";
  for (const sub of nodes) {
    if (sub.type === "action" && sub.text.startsWith("next(")) continue;
    out += " ".repeat(level * 4) + sub.text;
    if (sub.subs.length > 0) out += ` {\n${printSummary(sub.subs, level + 1)}${" ".repeat(level * 4)}}`;
    if (sub.type !== "action") out += ";";
    out += "\n";
  }
  return out;
}

type TraceFormat = "detailed" | "summary" | "minimal";

/** The text ovn-trace prints for this trace in one format (with its `# <flow>` first line). */
export function formatTrace(result: TraceResult, format: TraceFormat = "detailed"): string {
  const head = `# ${result.flow}\n`;
  switch (format) {
    case "detailed":
      return head + printDetailed(result.root);
    case "summary":
      return head + printSummary(prune(result.root, (t) => t === "modify" || t === "table"));
    case "minimal":
      return (
        head +
        printSummary(
          prune(result.root, (t) => t === "action" || t === "pipeline" || t === "table" || t === "output"),
        )
      );
  }
}
