/**
 * Reads the output of `ovn-nbctl|ovn-sbctl|ovs-vsctl --format=json list <Table>` into rows of the
 * API convention (docs/ovsdb-json.md). The CLIs print wire-format datums; this is written apart from
 * `decodeValue` on purpose, so that tests comparing the API with the CLIs do not check the decoder
 * against itself.
 */

import { compare } from "../../foundation/collections/compare.ts";
import type { Row } from "./datum.ts";
import { columnKind, type TableSchema } from "./schema.ts";

type Plain = string | number | boolean;

function plainAtom(wire: unknown): Plain {
  if (Array.isArray(wire) && wire[0] === "uuid") return String(wire[1]);
  if (typeof wire === "string" || typeof wire === "number" || typeof wire === "boolean") return wire;
  throw new Error(`not an atom: ${JSON.stringify(wire)}`);
}

function order(a: Plain, b: Plain): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return compare(String(a), String(b));
}

export function cliTableRows(output: string, table: TableSchema): Row[] {
  const parsed = JSON.parse(output) as { headings: string[]; data: unknown[][] };
  return parsed.data.map((values) => {
    const row: Record<string, unknown> = {};
    parsed.headings.forEach((heading, i) => {
      const wire = values[i];
      if (heading === "_uuid") {
        row._uuid = plainAtom(wire);
        return;
      }
      // The CLIs print the columns of the schema they were built with, which can hold columns the
      // server's schema lacks (ovn-sbctl 23.03 prints Logical_Flow.hash, absent from SB 20.27.0). The
      // API follows the server's schema, so those are left out.
      const column = table.columns[heading];
      if (column === undefined) return;
      const kind = columnKind(column.type);
      if (kind === "map") {
        const pairs = (wire as [string, [unknown, unknown][]])[1]
          .map(([k, v]) => [String(plainAtom(k)), plainAtom(v)] as const)
          .sort(([a], [b]) =>
            order(
              column.type.key.type === "string" ? a : Number(a),
              column.type.key.type === "string" ? b : Number(b),
            ),
          );
        row[heading] = Object.fromEntries(pairs);
        return;
      }
      const atoms =
        Array.isArray(wire) && wire[0] === "set" ? (wire[1] as unknown[]).map(plainAtom) : [plainAtom(wire)];
      row[heading] = kind === "set" ? atoms.sort(order) : kind === "optional" ? (atoms[0] ?? null) : atoms[0];
    });
    return row as Row;
  });
}
