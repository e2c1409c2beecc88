// Definitions in TypeScript and JavaScript sources, by TypeScript's own parser (the
// compiler API of the `typescript` package `make setup` installs).
// Usage: node ts_definitions.js PATH_TO_TYPESCRIPT. Protocol on stdin/stdout, one request
// after another: a line "<kind> <length>" (kind: ts, tsx, js, jsx; length in UTF-8 bytes),
// then the bytes; answered by one line, a JSON array of
// [name start, name end, start, end, name path, kind, header, body] (UTF-16 offsets), or
// `null` when the source has syntax errors.
"use strict";
const ts = require(process.argv[2]);

const KINDS = { ts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, js: ts.ScriptKind.JS, jsx: ts.ScriptKind.JSX };
const WRAPPERS = /^(React\.)?(memo|forwardRef|observer)$/;

// The function an initializer holds, behind parentheses, `as`, `satisfies`, a fallback
// (`a || function () {}`) or a component wrapper.
function functionValue(node) {
  while (node) {
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return node;
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) node = node.expression;
    else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.BarBarToken) node = node.right;
    else if (ts.isCallExpression(node) && WRAPPERS.test(node.expression.getText()) && node.arguments.length) node = node.arguments[0];
    else return null;
  }
  return null;
}

function braceStart(node) {
  const brace = node.getChildren().find((child) => child.kind === ts.SyntaxKind.OpenBraceToken);
  return brace ? brace.getStart() : node.end;
}

// [kind, name node or text, body start, body end] of a definition node, or null.
function describe(node) {
  const body = (fn) => (fn && fn.body ? [fn.body.getStart(), fn.body.end] : [node.end, node.end]);
  if (ts.isFunctionDeclaration(node)) {
    return ["function", node.name || "default", ...body(node)];
  }
  if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
    if (!node.name && !(node.parent && ts.isExportAssignment(node.parent))) return null;
    return ["class", node.name || "default", braceStart(node), node.end];
  }
  if (ts.isExportAssignment(node)) {
    const fn = functionValue(node.expression);
    return fn ? ["function", "default", ...body(fn)] : null;
  }
  if (ts.isMethodDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) {
    return ["method", node.name, ...body(node)];
  }
  if (ts.isConstructorDeclaration(node)) return ["method", "constructor", ...body(node)];
  if (ts.isMethodSignature(node)) return ["method", node.name, node.end, node.end];
  if (ts.isInterfaceDeclaration(node)) return ["interface", node.name, braceStart(node), node.end];
  if (ts.isTypeAliasDeclaration(node)) return ["type", node.name, node.type.getStart(), node.type.end];
  if (ts.isEnumDeclaration(node)) return ["enum", node.name, braceStart(node), node.end];
  if (ts.isModuleDeclaration(node) && node.body) return ["module", node.name, node.body.getStart(), node.body.end];
  if (ts.isPropertyDeclaration(node) && node.initializer) {
    const fn = functionValue(node.initializer);
    return fn ? ["method", node.name, ...body(fn)] : null;
  }
  if (ts.isVariableDeclaration(node) && node.initializer && ts.isIdentifier(node.name)) {
    const fn = functionValue(node.initializer);
    if (fn) return ["function", node.name, ...body(fn)];
    if (ts.isClassExpression(node.initializer)) return ["class", node.name, braceStart(node.initializer), node.initializer.end];
    return null;
  }
  if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
    const fn = functionValue(node.initializer);
    return fn && fn === node.initializer ? ["function", node.name, ...body(fn)] : null;
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
    const target = ts.isPropertyAccessExpression(node.left) ? node.left.name : ts.isIdentifier(node.left) ? node.left : null;
    const fn = target && (ts.isArrowFunction(node.right) || ts.isFunctionExpression(node.right)) ? node.right : null;
    return fn ? ["function", target, ...body(fn)] : null;
  }
  return null;
}

// Where a definition starts: a variable's statement (`export const f = ...`), an
// expression's statement, or the node itself (decorators and modifiers included).
function outer(node) {
  if (ts.isVariableDeclaration(node) && node.parent.declarations.length === 1) return node.parent.parent;
  if (ts.isBinaryExpression(node) && ts.isExpressionStatement(node.parent)) return node.parent;
  return node;
}

function fold(text) {
  return (text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, " ").match(/\w+|[^\w\s]/g) || []).join(" ");
}

function definitions(source, kind) {
  const file = ts.createSourceFile("input." + kind, source, ts.ScriptTarget.Latest, true, KINDS[kind]);
  if (file.parseDiagnostics && file.parseDiagnostics.length) return null;
  const found = [];
  const visit = (node, prefix) => {
    const description = describe(node);
    let inner = prefix;
    if (description) {
      const [kind, name, bodyStart, bodyEnd] = description;
      const text = typeof name === "string" ? name : name.getText();
      const nameStart = typeof name === "string" ? node.getStart() : name.getStart();
      const start = outer(node).getStart();
      const end = outer(node).end;
      const header = fold(source.slice(start, bodyStart) + " " + source.slice(bodyEnd, end));
      found.push([nameStart, nameStart + text.length, start, end, prefix + text, kind, header, fold(source.slice(bodyStart, bodyEnd))]);
      inner = prefix + text + "/";
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(file, "");
  return found;
}

let buffer = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const newline = buffer.indexOf(10);
    if (newline < 0) return;
    const [kind, length] = buffer.slice(0, newline).toString().split(" ");
    const size = parseInt(length, 10);
    if (buffer.length < newline + 1 + size) return;
    const source = buffer.slice(newline + 1, newline + 1 + size).toString("utf8");
    buffer = buffer.slice(newline + 1 + size);
    process.stdout.write(JSON.stringify(definitions(source, kind)) + "\n");
  }
});
