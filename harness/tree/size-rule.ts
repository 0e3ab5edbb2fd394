/**
 * The size rule (issue 27's acceptance, decision 14): no file over 600 lines and no function over 120,
 * unless a one-line `// size: <reason>` comment says why: on one of a file's first five lines, or in the
 * comments directly above a function's first line. Read with the TypeScript compiler's parser, so every
 * kind of function counts (declarations, methods, accessors, arrows, function expressions), each one
 * measured from its first line to its last, nested functions included.
 *
 * The bodies a test file hands to `describe`, `test`, `it` and their hooks are not functions a
 * reader has to hold in mind at once: they are skipped (helpers defined inside them are still measured).
 * A generated file (an `@generated` mark on one of its first five lines) is skipped whole.
 */
import ts from "typescript";

const maxFileLines = 600;
const maxFunctionLines = 120;

interface SizeViolation {
  file: string;
  /** The function's name as a reader would search for it, or undefined for the file itself. */
  name?: string;
  line: number;
  lines: number;
}

const headLines = 5;
/** A reason that defers the split ("split pending", "todo", "later") is no reason: the mark is a why, not a promise. */
const sizeMark = /^\s*\/\/ size: (?!.*\b(pending|todo|later)\b)\S/i;
const testCallees = new Set(["describe", "test", "it", "beforeAll", "afterAll", "beforeEach", "afterEach"]);

/** `describe`, `test.each(rows)`, `describe.skipIf(x)`: the identifier a test call starts from. */
function calleeRoot(expression: ts.Expression): string | undefined {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return calleeRoot(expression.expression);
  if (ts.isCallExpression(expression)) return calleeRoot(expression.expression);
  return undefined;
}

function isTestBody(node: ts.Node): boolean {
  const call = node.parent;
  return (
    call !== undefined &&
    ts.isCallExpression(call) &&
    call.arguments.some((a) => a === node) &&
    testCallees.has(calleeRoot(call.expression) ?? "")
  );
}

function nameOf(node: ts.FunctionLikeDeclaration): string {
  const named = (n: ts.Node | undefined): string | undefined =>
    n !== undefined && (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n))
      ? n.text
      : undefined;
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const own = named(node.name);
  if (own !== undefined) return own;
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    return named(parent.name) ?? "(anonymous)";
  }
  return "(anonymous)";
}

/** Whether the comment lines directly above `line` (0-based) hold a size mark. */
function markedAbove(lines: readonly string[], line: number): boolean {
  for (let i = line - 1; i >= 0; i--) {
    const text = (lines[i] ?? "").trim();
    if (!(text.startsWith("//") || text.startsWith("/*") || text.startsWith("*"))) return false;
    if (sizeMark.test(text)) return true;
  }
  return false;
}

/** The files and functions of one source that break the size rule. */
export function sizeViolations(fileName: string, source: string): SizeViolation[] {
  const lines = source.split("\n");
  const head = lines.slice(0, headLines);
  if (head.some((l) => l.includes("@generated"))) return [];
  const found: SizeViolation[] = [];
  const fileLines = source.endsWith("\n") ? lines.length - 1 : lines.length;
  if (fileLines > maxFileLines && !head.some((l) => sizeMark.test(l))) {
    found.push({ file: fileName, line: 1, lines: fileLines });
  }
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const isTestFile = fileName.endsWith(".test.ts");
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = file.getLineAndCharacterOfPosition(fn.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(fn.getEnd()).line;
      const length = last - first + 1;
      if (length > maxFunctionLines && !(isTestFile && isTestBody(fn)) && !markedAbove(lines, first)) {
        found.push({ file: fileName, name: nameOf(fn), line: first + 1, lines: length });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

export function describeViolation(v: SizeViolation): string {
  return v.name === undefined
    ? `${v.file}: ${v.lines} lines (at most ${maxFileLines})`
    : `${v.file}:${v.line} ${v.name}: ${v.lines} lines (at most ${maxFunctionLines})`;
}
