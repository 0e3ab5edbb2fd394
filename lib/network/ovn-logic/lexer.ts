/**
 * The lexer of OVN's logical-flow language (ovn/lib/lex.c): identifiers (letters, digits, `_`, `.`),
 * quoted strings, integers in decimal, hex, IPv4, IPv6 and Ethernet form with an optional `/mask` or
 * `/prefix`, `$address_set`, `@port_group`, `^template`, comments, and the operators. Errors carry the
 * lexer's own wording.
 */
import { parseIpv4, parseIpv6, parseMac, prefixMask } from "./addresses.ts";

export type IntFormat = "decimal" | "hex" | "ipv4" | "ipv6" | "ethernet";

export type Punct =
  | "("
  | ")"
  | "{"
  | "}"
  | "["
  | "]"
  | "=="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">="
  | "!"
  | "&&"
  | "||"
  | ".."
  | ","
  | ";"
  | "="
  | "<->"
  | "--"
  | ":"
  | "-";

export type Token =
  | { type: "id"; s: string; start: number; end: number }
  | { type: "string"; s: string; start: number; end: number }
  | { type: "int"; value: bigint; mask: bigint | undefined; format: IntFormat; start: number; end: number }
  | { type: "macro"; s: string; start: number; end: number }
  | { type: "port_group"; s: string; start: number; end: number }
  | { type: "template"; s: string; start: number; end: number }
  | { type: "punct"; p: Punct; start: number; end: number }
  | { type: "end"; start: number; end: number };

export class OvnSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OvnSyntaxError";
  }
}

const isId1 = (c: string) => /[A-Za-z_.]/.test(c);
const isIdN = (c: string) => /[A-Za-z_.0-9]/.test(c);
const isAlnum = (c: string) => /[A-Za-z0-9]/.test(c);

interface Integer {
  value: bigint;
  format: IntFormat;
}

function parseIntegerText(text: string): Integer {
  if (text.length === 0) throw new OvnSyntaxError("Integer constant expected.");
  if (text.length === 17) {
    const mac = parseMac(text);
    if (mac !== undefined) return { value: mac, format: "ethernet" };
  }
  if (/^[0-9]+$/.test(text)) {
    if (text[0] === "0" && text.length > 1)
      throw new OvnSyntaxError("Decimal constants must not have leading zeros.");
    const value = BigInt(text);
    if (value >= 1n << 64n) throw new OvnSyntaxError("Decimal constants must be less than 2**64.");
    return { value, format: "decimal" };
  }
  if (text[0] === "0" && (text[1] === "x" || text[1] === "X")) {
    const digits = text.slice(2);
    if (digits.length === 0) throw new OvnSyntaxError(`Hex digits expected following 0${text[1]}.`);
    if (!/^[0-9a-fA-F]+$/.test(digits)) throw new OvnSyntaxError("Invalid syntax in hexadecimal constant.");
    const value = BigInt(`0x${digits}`);
    if (value >= 1n << 1024n) throw new OvnSyntaxError("Hexadecimal constant requires more than 1024 bits.");
    return { value, format: "hex" };
  }
  if (text.length < 46) {
    const v4 = parseIpv4(text);
    if (v4 !== undefined) return { value: v4, format: "ipv4" };
    const v6 = parseIpv6(text);
    if (v6 !== undefined) return { value: v6, format: "ipv6" };
  }
  throw new OvnSyntaxError("Invalid numeric constant.");
}

/** The extent of an "integer": alphanumerics, `:` until a dot was seen, and `.` not followed by `.`. */
function integerEnd(input: string, start: number): number {
  let end = start;
  let sawDot = false;
  for (;;) {
    const c = input[end];
    if (c === undefined) break;
    if (isAlnum(c) || (c === ":" && !sawDot) || (c === "." && input[end + 1] !== ".")) {
      if (c === ".") sawDot = true;
      end++;
    } else break;
  }
  return end;
}

function lexInteger(input: string, start: number): Token {
  const end = integerEnd(input, start);
  const { value, format } = parseIntegerText(input.slice(start, end));
  if (input[end] !== "/") return { type: "int", value, mask: undefined, format, start, end };
  const maskEnd = integerEnd(input, end + 1);
  const mask = parseIntegerText(input.slice(end + 1, maskEnd));
  let maskValue: bigint;
  let outFormat = format;
  if (format === mask.format) maskValue = mask.value;
  else if (format === "ipv4" && mask.format === "decimal" && mask.value <= 32n)
    maskValue = prefixMask(Number(mask.value), 32);
  else if (format === "ipv6" && mask.format === "decimal" && mask.value <= 128n)
    maskValue = prefixMask(Number(mask.value), 128);
  else if (format === "decimal" && mask.format === "hex" && value === 0n) {
    outFormat = "hex";
    maskValue = mask.value;
  } else throw new OvnSyntaxError("Value and mask have incompatible formats.");
  return { type: "int", value: value & maskValue, mask: maskValue, format: outFormat, start, end: maskEnd };
}

function unescapeJsonString(body: string): string {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch (error) {
    throw new OvnSyntaxError(`Invalid string: ${(error as Error).message}`);
  }
}

/** Returns the token starting at (or after white space and comments from) `pos`. */
export function nextToken(input: string, from: number): Token {
  let p = from;
  for (;;) {
    const c = input[p];
    if (c === undefined) return { type: "end", start: p, end: p };
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\v" || c === "\f") {
      p++;
      continue;
    }
    if (c === "/") {
      if (input[p + 1] === "/") {
        while (p < input.length && input[p] !== "\n") p++;
        continue;
      }
      if (input[p + 1] === "*") {
        const close = input.indexOf("*/", p + 2);
        const newline = input.indexOf("\n", p + 2);
        if (close < 0 || (newline >= 0 && newline < close))
          throw new OvnSyntaxError("`/*' without matching `*/'.");
        p = close + 2;
        continue;
      }
      throw new OvnSyntaxError("`/' is only valid as part of `//' or `/*'.");
    }
    break;
  }
  const start = p;
  const c = input[p] as string;
  const punct = (q: Punct, length: number): Token => ({ type: "punct", p: q, start, end: start + length });
  const two = input.slice(p, p + 2);
  switch (c) {
    case "(":
    case ")":
    case "{":
    case "}":
    case "[":
    case "]":
    case ",":
    case ";":
      return punct(c, 1);
    case "=":
      return two === "==" ? punct("==", 2) : punct("=", 1);
    case "!":
      return two === "!=" ? punct("!=", 2) : punct("!", 1);
    case "&":
      if (two === "&&") return punct("&&", 2);
      throw new OvnSyntaxError("`&' is only valid as part of `&&'.");
    case "|":
      if (two === "||") return punct("||", 2);
      throw new OvnSyntaxError("`|' is only valid as part of `||'.");
    case "<":
      if (two === "<=") return punct("<=", 2);
      if (input.slice(p, p + 3) === "<->") return punct("<->", 3);
      return punct("<", 1);
    case ">":
      return two === ">=" ? punct(">=", 2) : punct(">", 1);
    case ".":
      if (two === "..") return punct("..", 2);
      throw new OvnSyntaxError("`.' is only valid as part of `..' or a number.");
    case "-":
      return two === "--" ? punct("--", 2) : punct("-", 1);
    case "$":
    case "@":
    case "^": {
      if (!isId1(input[p + 1] ?? "")) {
        const what = c === "$" ? "`$'" : c === "@" ? "`@'" : "`^'";
        throw new OvnSyntaxError(`${what} must be followed by a valid identifier.`);
      }
      let end = p + 2;
      while (isIdN(input[end] ?? "")) end++;
      const type = c === "$" ? "macro" : c === "@" ? "port_group" : "template";
      return { type, s: input.slice(p + 1, end), start, end };
    }
    case '"': {
      let q = p + 1;
      for (;;) {
        const d = input[q];
        if (d === undefined) throw new OvnSyntaxError("Input ends inside quoted string.");
        if (d === '"') break;
        q += d === "\\" ? 2 : 1;
      }
      return { type: "string", s: unescapeJsonString(input.slice(p + 1, q)), start, end: q + 1 };
    }
    case ":":
      if (input[p + 1] !== ":") return punct(":", 1);
      return lexInteger(input, p);
  }
  if (c >= "0" && c <= "9") return lexInteger(input, p);
  if (/[a-fA-F]/.test(c)) {
    let q = p;
    while (/[0-9a-fA-F]/.test(input[q] ?? "")) q++;
    if (input[q] === ":") return lexInteger(input, p);
  }
  if (isId1(c)) {
    let end = p + 1;
    while (isIdN(input[end] ?? "")) end++;
    return { type: "id", s: input.slice(p, end), start, end };
  }
  throw new OvnSyntaxError(`Invalid character \`${c}' in input.`);
}

/** A cursor over the tokens of one input, as the C parsers use `struct lexer`. */
export class Lexer {
  token: Token;
  private pos = 0;

  constructor(readonly input: string) {
    this.token = this.read();
  }

  private read(): Token {
    const token = nextToken(this.input, this.pos);
    this.pos = token.end;
    return token;
  }

  get(): Token {
    this.token = this.read();
    return this.token;
  }

  lookahead(): Token {
    return nextToken(this.input, this.pos);
  }

  isPunct(p: Punct): boolean {
    return this.token.type === "punct" && this.token.p === p;
  }

  match(p: Punct): boolean {
    if (!this.isPunct(p)) return false;
    this.get();
    return true;
  }

  force(p: Punct): void {
    if (!this.match(p)) this.syntaxError(`expecting \`${p}'`);
  }

  isId(name: string): boolean {
    return this.token.type === "id" && this.token.s === name;
  }

  matchId(name: string): boolean {
    if (!this.isId(name)) return false;
    this.get();
    return true;
  }

  atEnd(): boolean {
    return this.token.type === "end";
  }

  forceEnd(): void {
    if (!this.atEnd()) this.syntaxError("expecting end of input");
  }

  /** A decimal integer token (lexer_force_int). */
  forceInt(): number {
    const t = this.token;
    if (t.type !== "int" || t.mask !== undefined || t.format !== "decimal" || t.value > 0x7fffffffn)
      this.syntaxError("expecting small integer");
    this.get();
    return Number((t as { value: bigint }).value);
  }

  isInt(): boolean {
    const t = this.token;
    return t.type === "int" && t.mask === undefined && t.format === "decimal" && t.value <= 0x7fffffffn;
  }

  syntaxError(message: string): never {
    const near =
      this.token.type === "end" ? "end of input" : `\`${this.input.slice(this.token.start, this.token.end)}'`;
    throw new OvnSyntaxError(`Syntax error at ${near} ${message}.`);
  }
}
