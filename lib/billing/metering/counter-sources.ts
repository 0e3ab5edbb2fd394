import { isYamlMap as isMap, readFailsafeYaml } from "../../foundation/yaml/failsafe-yaml.ts";
import { dimensionOf } from "../pricing/dimensions.ts";

/**
 * The counter-sources file (`SVC_ENGINE_COUNTER_SOURCES`, docs/engine.md): which cumulative counter
 * feeds which counter dimension, and the series selector that finds it. Each source names the labels
 * that carry the cloud and the resource id, which the engine adds as filters per batch of resources.
 */
const counterSourcesFormat = 1;

export interface CounterSource {
  dimension: string;
  platform: string;
  resource_type: string;
  /** A series selector (`name` or `name{label="v"}`) without the cloud and resource filters. */
  selector: string;
  cloud_label: string;
  resource_label: string;
  /** How far before an interval's start the last sample may lie (a real counter is sampled every few minutes). */
  lookback_seconds: number;
}

export class CounterSourcesError extends Error {
  constructor(readonly problems: string[]) {
    super(`the counter sources are not valid: ${problems.join("; ")}`);
    this.name = "CounterSourcesError";
  }
}

const labelPattern = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const selectorPattern = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})?$/;
const members = [
  "dimension",
  "platform",
  "resource_type",
  "selector",
  "cloud_label",
  "resource_label",
  "lookback_seconds",
];

export function readCounterSources(text: string): CounterSource[] {
  const doc = readFailsafeYaml(text, (problem) => new CounterSourcesError([problem]));
  if (!isMap(doc)) throw new CounterSourcesError(["the document must be a mapping"]);
  const problems: string[] = [];
  for (const key of Object.keys(doc)) {
    if (key !== "format" && key !== "sources") problems.push(`${key}: unknown member`);
  }
  if (doc.format !== String(counterSourcesFormat)) problems.push(`format: must be ${counterSourcesFormat}`);
  const sources: CounterSource[] = [];
  if (!Array.isArray(doc.sources)) problems.push("sources: a list of counter sources, required");
  else {
    doc.sources.forEach((node, i) => {
      const at = `sources.${i}`;
      if (!isMap(node)) {
        problems.push(`${at}: a mapping`);
        return;
      }
      for (const key of Object.keys(node))
        if (!members.includes(key)) problems.push(`${at}.${key}: unknown member`);
      const text = (name: string, fallback?: string): string => {
        const v = node[name];
        if (v === undefined && fallback !== undefined) return fallback;
        if (typeof v !== "string" || v === "") {
          problems.push(`${at}.${name}: a string, required`);
          return "";
        }
        return v;
      };
      const source: CounterSource = {
        dimension: text("dimension"),
        platform: text("platform"),
        resource_type: text("resource_type"),
        selector: text("selector"),
        cloud_label: text("cloud_label", "cloud"),
        resource_label: text("resource_label", "resource_id"),
        lookback_seconds: 0,
      };
      const lookback = text("lookback_seconds", "3600");
      if (!/^\d{1,7}$/.test(lookback))
        problems.push(`${at}.lookback_seconds: whole seconds, at most 9999999`);
      source.lookback_seconds = Number(lookback);
      if (source.dimension !== "" && source.resource_type !== "") {
        const dimension = dimensionOf(source.resource_type, source.dimension);
        if (dimension?.source.kind !== "counter") {
          problems.push(
            `${at}.dimension: ${source.dimension} is not a counter dimension of ${source.resource_type}`,
          );
        }
      }
      if (source.selector !== "" && !selectorPattern.test(source.selector)) {
        problems.push(`${at}.selector: a series selector such as name{label="value"}`);
      }
      for (const label of ["cloud_label", "resource_label"] as const) {
        if (source[label] !== "" && !labelPattern.test(source[label]))
          problems.push(`${at}.${label}: a label name`);
      }
      const twin = sources.find(
        (s) =>
          s.platform === source.platform &&
          s.resource_type === source.resource_type &&
          s.dimension === source.dimension,
      );
      if (twin)
        problems.push(
          `${at}: a second source for ${source.platform}/${source.resource_type}/${source.dimension}`,
        );
      sources.push(source);
    });
  }
  if (problems.length > 0) throw new CounterSourcesError(problems);
  return sources;
}
