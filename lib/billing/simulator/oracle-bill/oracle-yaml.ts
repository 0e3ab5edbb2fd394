import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { isYamlMap, type YamlNode } from "../../../foundation/yaml/failsafe-yaml.ts";
import { type Exact, exactOf } from "./exact.ts";

/**
 * How the oracle reads the pricing model's nodes: each refusal names the path of what it could not
 * read. The format's own rules are the engine's to enforce (decision 454); these only keep the oracle
 * from pricing what it misread.
 */

const plainDecimal = /^\d+(\.\d+)?$/;

export function fail(path: string, what: string): never {
  throw new ValidationError(`the pricing model's ${path} ${what}`);
}

export function mapAt(node: YamlNode | undefined, path: string): Record<string, YamlNode> {
  if (!isYamlMap(node)) fail(path, "is not a mapping");
  return node;
}

export function textAt(node: YamlNode | undefined, path: string): string {
  if (typeof node !== "string") fail(path, "is not a scalar");
  return node;
}

export function listAt(node: YamlNode | undefined, path: string): YamlNode[] {
  if (!Array.isArray(node)) fail(path, "is not a list");
  return node;
}

/** A price, a bound or an amount: a non-negative plain decimal, exact. */
export function decimalAt(node: YamlNode | undefined, path: string): Exact {
  const text = textAt(node, path);
  if (!plainDecimal.test(text)) fail(path, "is not a plain decimal");
  return exactOf(text);
}
