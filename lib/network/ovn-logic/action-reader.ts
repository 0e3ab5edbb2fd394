/**
 * What the grammars of single actions (`conntrack-actions.ts`, `assignment-actions.ts`,
 * `call-actions.ts`) ask of the action parser: the lexer, fields read with their prerequisites added to
 * the match and their type checked, the next table, and nested action lists. The parser
 * (`action-parser.ts`) is the one implementation; the interface keeps the grammars below it.
 */
import type { Action, FieldRef, NestedName } from "./action.ts";
import type { Lexer } from "./lexer.ts";
import type { SymbolTable } from "./symbols.ts";

export interface ActionReader {
  readonly lexer: Lexer;
  readonly symtab: SymbolTable;
  /** Where a field may be written here: WR_DEFAULT, or WR_CT_COMMIT inside `ct_commit { }`. */
  readonly scope: number;
  /** Adds a prerequisite (expression text) to the flow's match. */
  addPrereq(text: string): void;
  /** expr_field_parse: a field, with its prerequisites added to the match. */
  field(): FieldRef;
  /** A field of `nBits` bits (0: a string field), writable here when `rw`. */
  fieldOf(nBits: number, rw: boolean): FieldRef;
  typeCheck(f: FieldRef, nBits: number, rw: boolean): void;
  /** The table after this one, refused in the last table. */
  nextTable(name: string): number;
  /** A decimal up to 65535, or a syntax error expecting `what`. */
  uint16(what: string): number;
  /** `{ actions }` parsed with `scope`, and the prerequisite the nesting action adds. */
  nested(name: NestedName, prereq: string | undefined, scope: number): Action;
}
