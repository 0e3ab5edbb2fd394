/**
 * A PostgreSQL array literal (`{"a","b",NULL}`) of text values, for a statement that takes a batch's
 * rows as one array per column through `unnest` (decision 145): the server reads such an array with a
 * scan of the text and one element input call each, where a `json` parameter is parsed twice (once
 * when bound, once by `json_to_recordset`) and a nested value a third time into `jsonb`. Every element
 * is quoted, so any text (commas, braces, spaces, the word NULL) stays itself; null is `NULL`.
 */
export function arrayLiteral(values: readonly (string | null)[]): string {
  let text = "{";
  for (let i = 0; i < values.length; i++) {
    const v = values[i] ?? null;
    if (i > 0) text += ",";
    // Most values hold neither a quote nor a backslash: testing first spares a copy of each.
    text += v === null ? "NULL" : /["\\]/.test(v) ? `"${v.replace(/["\\]/g, "\\$&")}"` : `"${v}"`;
  }
  return `${text}}`;
}
