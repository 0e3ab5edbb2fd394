import type { Sql, TransactionSql } from "postgres";

export type CopyValue = string | null;

/** A value in PostgreSQL's COPY text format: backslash, tab, newline and return escaped; null as `\N`. */
function field(value: CopyValue): string {
  if (value === null) return "\\N";
  return value.replace(/[\\\t\n\r]/g, (c) =>
    c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r",
  );
}

/**
 * Rows for one table gathered in memory up to `chunk`, then sent with one COPY: bulk rows of a run go
 * in at COPY speed while memory stays bounded by the chunk. Several writers may share one
 * transaction, since each COPY completes before the next starts.
 */
export class CopyWriter {
  #rows: string[] = [];
  written = 0;

  constructor(
    private readonly sql: Sql | TransactionSql,
    private readonly table: string,
    private readonly columns: readonly string[],
    private readonly chunk = 10_000,
  ) {}

  async add(values: readonly CopyValue[]): Promise<void> {
    this.#rows.push(values.map(field).join("\t"));
    if (this.#rows.length >= this.chunk) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#rows.length === 0) return;
    const text = `${this.#rows.join("\n")}\n`;
    const count = this.#rows.length;
    this.#rows = [];
    const columns = this.columns.map((c) => `"${c}"`).join(", ");
    const writable = await this.sql.unsafe(`copy "${this.table}" (${columns}) from stdin`).writable();
    await new Promise<void>((resolve, reject) => {
      writable.on("error", reject);
      writable.on("finish", resolve);
      writable.end(text);
    });
    this.written += count;
  }
}
