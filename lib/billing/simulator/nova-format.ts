/**
 * What nova's `[notifications] notification_format` says a simulated cloud sends (decision 287):
 * `legacy` (nova's `unversioned`, the default), `versioned`, or `both`.
 */
export const novaFormats = ["legacy", "versioned", "both"] as const;

export type NovaFormat = (typeof novaFormats)[number];

/** Reads `--nova-format`; throws naming the three. */
export function parseNovaFormat(text: string): NovaFormat {
  const found = novaFormats.find((f) => f === text);
  if (found === undefined)
    throw new RangeError(`must be one of ${novaFormats.join(", ")}, not ${JSON.stringify(text)}`);
  return found;
}
