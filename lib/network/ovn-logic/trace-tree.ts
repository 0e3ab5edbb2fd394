/**
 * A trace as ovn-trace builds it (utilities/ovn-trace.c, `struct ovntrace_node`): a tree of nodes,
 * each a table lookup, an action, a modification, a transformation (a conntrack fork, a nested
 * action), a pipeline entered, an output or an error; table nodes also carry the stage as data.
 */
import type { Pipeline } from "./action.ts";

export type NodeType = "output" | "modify" | "action" | "error" | "pipeline" | "table" | "transformation";

/** What a table node records besides its text. */
interface StageInfo {
  datapath: string;
  datapathUuid: string;
  pipeline: Pipeline;
  table: number;
  stageName: string | undefined;
  /** null: no flow matched (implicit drop). */
  flow: {
    uuid: string;
    priority: number;
    match: string;
    source: string | undefined;
    stageHint: string | undefined;
  } | null;
}

export interface TraceNode {
  type: NodeType;
  text: string;
  alwaysIndent: boolean;
  subs: TraceNode[];
  stage?: StageInfo;
  /** On an output leaf: the logical port the packet leaves by. */
  delivered?: { port: string; datapath: string; type: string };
}

export interface TraceResult {
  datapath: string;
  inport: string;
  flow: string;
  root: TraceNode[];
}

export class TraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TraceError";
  }
}

/** ovntrace_node_append: a new node at the end of `list`. */
export function appendNode(list: TraceNode[], type: NodeType, text: string): TraceNode {
  const node: TraceNode = { type, text, alwaysIndent: false, subs: [] };
  list.push(node);
  return node;
}
