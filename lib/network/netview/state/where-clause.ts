/**
 * The `where` clause of a state-database query made of optional filters: each condition is added
 * only when the caller gave its value, and its values travel as bound parameters, never as text in
 * the SQL. The event and audit lists both filter this way.
 */
export type SqlValue = string | number;

export class WhereClause {
  private readonly conditions: string[] = [];
  readonly args: SqlValue[] = [];

  /** `condition` (with one `?`) bound to `value`, unless `value` is undefined. */
  when(condition: string, value: SqlValue | undefined): this {
    if (value !== undefined) {
      this.conditions.push(condition);
      this.args.push(value);
    }
    return this;
  }

  /** `column` is one of `values`, unless there are none. */
  anyOf(column: string, values: readonly SqlValue[] | undefined): this {
    if (values !== undefined && values.length > 0) {
      this.conditions.push(`${column} in (${values.map(() => "?").join(", ")})`);
      this.args.push(...values);
    }
    return this;
  }

  /** `where …`, or nothing when no condition applies. */
  toString(): string {
    return this.conditions.length === 0 ? "" : `where ${this.conditions.join(" and ")}`;
  }
}
