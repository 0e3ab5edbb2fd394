import YAML from "yaml";

/**
 * A YAML document read with the failsafe schema: every scalar is the text that was written (no number,
 * boolean or date is guessed), so prices and other decimals never pass through a float. The engine's
 * pricing model and counter sources are read this way.
 */
export type YamlNode = string | YamlNode[] | { [key: string]: YamlNode };

export function isYamlMap(node: YamlNode | undefined): node is { [key: string]: YamlNode } {
  return typeof node === "object" && node !== null && !Array.isArray(node);
}

/** The document, or a one-line complaint (the parser's first line) thrown as `makeError`'s error. */
export function readFailsafeYaml(text: string, makeError: (problem: string) => Error): YamlNode {
  try {
    return YAML.parse(text, { schema: "failsafe", uniqueKeys: true }) as YamlNode;
  } catch (cause) {
    throw makeError(`not YAML: ${(cause as Error).message.split("\n")[0]}`);
  }
}
