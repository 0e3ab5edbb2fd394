/**
 * Rows sent with `COPY … FROM STDIN` in PostgreSQL's text format: PostgreSQL's cheapest way in for
 * many rows. The engine writes its run's rows this way (decision 278; ingest's new projection rows go
 * in the binary format, `copy-binary.ts`): a bound JSON parameter of a batch costs the server the
 * message, a copy of the text, the parse and the recordset held in memory, and the freshly allocated
 * megabyte faulted in page by page.
 */
import type { TransactionSql } from "postgres";

export type CopyValue = string | null;

const escaped = /[\\\t\n\r]/;

/** A value in PostgreSQL's COPY text format: backslash, tab, newline and return escaped; null as `\N`. */
export function copyField(value: CopyValue): string {
  if (value === null) return "\\N";
  // Most values hold nothing to escape: testing first spares a copy of each.
  if (!escaped.test(value)) return value;
  return value.replace(/[\\\t\n\r]/g, (c) =>
    c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r",
  );
}

/** Values as one line of COPY's text format, without its newline: each escaped, tab-separated. */
export function copyFields(values: readonly CopyValue[]): string {
  let line = copyField(values[0] ?? null);
  for (let i = 1; i < values.length; i++) line += `\t${copyField(values[i] ?? null)}`;
  return line;
}

/**
 * Runs `statement` (a `COPY … FROM STDIN`) with `text` as its whole input, inside the caller's
 * transaction or not; settles when the server has taken it, and fails with the server's refusal.
 * Input in pieces goes out piece by piece (decision 433): each becomes a buffer of its own, small
 * enough for the allocator to reuse, where one of a whole megabyte chunk was fresh memory each time.
 */
export async function copyIn(
  sql: Pick<TransactionSql, "unsafe">,
  statement: string,
  text: string | readonly (string | Uint8Array)[],
): Promise<void> {
  const writable = await sql.unsafe(statement).writable();
  await new Promise<void>((resolve, reject) => {
    writable.on("error", reject);
    writable.on("finish", resolve);
    if (typeof text !== "string") for (const piece of text) writable.write(piece);
    writable.end(typeof text === "string" ? text : undefined);
  });
}
