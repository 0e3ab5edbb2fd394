/**
 * Where a citation of our docs lands (decision 60): `docs/engine.md#credit-notes` names a heading of
 * `docs/engine.md` by the anchor a Markdown renderer gives it (GitHub's rule: the heading's text in
 * lower case, punctuation dropped, spaces as hyphens, `-1`, `-2` ... for repeats). The spec is not part
 * of the repository, so code and docs cite these anchors, never "spec 2, ...".
 */

/** The anchor of one heading's text. */
export function slugOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Every anchor of a Markdown document, fenced code skipped. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const slug = slugOf(heading[1] ?? "");
    const repeats = seen.get(slug) ?? 0;
    seen.set(slug, repeats + 1);
    anchors.add(repeats === 0 ? slug : `${slug}-${repeats}`);
  }
  return anchors;
}

interface DocCitation {
  file: string;
  line: number;
  doc: string;
  anchor: string;
}

/** The `docs/<name>.md#<anchor>` citations in one file's text. */
export function citationsIn(file: string, text: string): DocCitation[] {
  const found: DocCitation[] = [];
  text.split("\n").forEach((line, index) => {
    for (const m of line.matchAll(/\bdocs\/([\w./-]+\.md)#([\p{L}\p{N}_-]+)/gu))
      found.push({ file, line: index + 1, doc: `docs/${m[1]}`, anchor: m[2] ?? "" });
  });
  return found;
}
