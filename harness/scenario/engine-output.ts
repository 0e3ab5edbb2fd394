/** What `engine run` (or `correct`) printed, read back. */
export interface RunOutput {
  runId: string;
  candidates: number;
  usageRecords: number;
  ratedRecords: number;
  /** The seven classes and the named codes of the warnings line, as printed. */
  warnings: Record<string, number>;
  codes: Record<string, number>;
}

export class EngineOutputError extends Error {
  override name = "EngineOutputError";
}

function counts(text: string): Record<string, number> {
  return Object.fromEntries([...text.matchAll(/([a-z_]+)=(\d+)/g)].map((m) => [m[1] ?? "", Number(m[2])]));
}

/**
 * Reads the lines of `engine run` (docs/engine.md, Commands): the run line, the metered line and the
 * warnings line `warnings recorded in runs.stats: <class>=<n> ... (<code>=<n> ...)`.
 */
export function readRunOutput(lines: readonly string[]): RunOutput {
  const text = lines.join("\n");
  const run = /^run (\S+) completed/m.exec(text);
  const metered = /^metered (\d+) candidates into (\d+) usage records and (\d+) rated records$/m.exec(text);
  const warnings = /^warnings recorded in runs\.stats: ([^(\n]*)(?:\(([^)]*)\))?$/m.exec(text);
  if (run === null || metered === null || warnings === null)
    throw new EngineOutputError(`the engine printed no run, metered or warnings line:\n${text}`);
  return {
    runId: run[1] ?? "",
    candidates: Number(metered[1]),
    usageRecords: Number(metered[2]),
    ratedRecords: Number(metered[3]),
    warnings: counts(warnings[1] ?? ""),
    codes: counts(warnings[2] ?? ""),
  };
}

/** One resource `detect-late` names: `<cloud>/<platform>/<type>/<id>: <n> late events, last received <instant>`. */
export interface LateResource {
  /** `<resource_type>/<resource_id>`, as `simulator compare` names a resource. */
  resource: string;
  events: number;
}

/** Reads `detect-late`: the resources it names (none when it says `no events arrived later`). */
export function readLateOutput(lines: readonly string[]): LateResource[] {
  const late: LateResource[] = [];
  for (const line of lines) {
    const m = /^[^/]+\/[^/]+\/([^/]+\/[^:]+): (\d+) late events?, last received \S+$/.exec(line);
    if (m !== null) late.push({ resource: m[1] ?? "", events: Number(m[2]) });
  }
  return late;
}

/** What `engine correct` printed: a correction run with its tally, or `no deltas` (null). */
export interface CorrectionOutput extends RunOutput {
  correctsRunId: string;
  deltas: number;
  adjustmentDeltas: number;
  creditNotes: number;
}

/**
 * Reads `engine correct` (docs/engine.md, Commands): the run, metered, tally and warnings lines, or
 * null for `no deltas: the finalized numbers of <p> stand`.
 */
export function readCorrectionOutput(lines: readonly string[]): CorrectionOutput | null {
  if (lines.length === 1 && /^no deltas: /.test(lines[0] ?? "")) return null;
  const text = lines.join("\n");
  const corrects = /^run \S+ completed as a correction of run (\S+) /m.exec(text);
  const tally = /^(\d+) deltas and (\d+) adjustment deltas in (\d+) credit notes$/m.exec(text);
  if (corrects === null || tally === null)
    throw new EngineOutputError(`the engine printed no correction or tally line:\n${text}`);
  return {
    ...readRunOutput(lines),
    correctsRunId: corrects[1] ?? "",
    deltas: Number(tally[1]),
    adjustmentDeltas: Number(tally[2]),
    creditNotes: Number(tally[3]),
  };
}
