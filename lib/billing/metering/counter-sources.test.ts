import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { CounterSourcesError, readCounterSources } from "./counter-sources.ts";

test("the shipped sources read, with defaults", () => {
  const sources = readCounterSources(
    readFileSync(new URL("../../../pricing/counter-sources.yaml", import.meta.url), "utf8"),
  );
  expect(sources).toEqual([
    {
      dimension: "egress_gb",
      platform: "platform_a",
      resource_type: "instance",
      selector: "platform_a_instance_network_egress_bytes_total",
      cloud_label: "cloud",
      resource_label: "resource_id",
      lookback_seconds: 3600,
    },
  ]);
});

test("every problem at once", () => {
  const text = `format: 1
sources:
  - dimension: vcpus
    platform: platform_a
    resource_type: instance
    selector: "bad selector"
    resource_label: "1x"
    lookback_seconds: soon
    extra: 1
`;
  let problems: string[] = [];
  try {
    readCounterSources(text);
  } catch (e) {
    if (e instanceof CounterSourcesError) problems = e.problems;
  }
  expect(problems).toEqual([
    "sources.0.extra: unknown member",
    "sources.0.lookback_seconds: whole seconds, at most 9999999",
    "sources.0.dimension: vcpus is not a counter dimension of instance",
    'sources.0.selector: a series selector such as name{label="value"}',
    "sources.0.resource_label: a label name",
  ]);
});
