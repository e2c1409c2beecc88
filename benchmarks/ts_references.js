// Identifiers of one TypeScript or JavaScript source resolved by TypeScript's own checker (the
// compiler API of the `typescript` package `make setup` installs), sharing nothing with the
// gateway. Usage: node ts_references.js PATH_TO_TYPESCRIPT KIND < source (KIND: ts, tsx, js,
// jsx). Prints one line: {"errors": n, "names": [[offset, key], ...]} (UTF-16 offsets; the key
// is the same for two identifiers exactly when the checker binds them to the same symbol: its
// first declaration, as a symbol merged with others (a JavaScript function given properties by
// assignment) is a new symbol object with the same declarations), or
// null when the source has syntax errors. Errors: the file's syntactic and semantic
// diagnostics, the file checked alone with the standard library (imports that do not resolve
// count the same before and after a change).
"use strict";
const ts = require(process.argv[2]);
const kind = process.argv[3];
const NAME = "input." + kind;

function resolve(source) {
  const options = {
    target: ts.ScriptTarget.ES2022, allowJs: true, checkJs: true, jsx: ts.JsxEmit.Preserve, noEmit: true,
    skipLibCheck: true, types: [], noResolve: true,
  };
  const host = ts.createCompilerHost(options, true);
  const read = host.getSourceFile;
  host.getSourceFile = (fileName, language, onError) =>
    fileName === NAME ? ts.createSourceFile(NAME, source, language, true) : read(fileName, language, onError);
  host.fileExists = ((exists) => (fileName) => fileName === NAME || exists(fileName))(host.fileExists);
  const program = ts.createProgram([NAME], options, host);
  const file = program.getSourceFile(NAME);
  if (program.getSyntacticDiagnostics(file).length) return null;
  const checker = program.getTypeChecker();
  const ids = new Map();
  const key = (symbol) => {
    const declarations = (symbol.declarations || []).map((d) => [d.getSourceFile().fileName, d.pos])
      .sort((a, b) => (a[0] === b[0] ? a[1] - b[1] : a[0] < b[0] ? -1 : 1));
    if (declarations.length) return declarations[0].join("@");
    if (!ids.has(symbol)) ids.set(symbol, "symbol" + ids.size);
    return ids.get(symbol);
  };
  const names = [];
  const visit = (node) => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      let symbol = checker.getSymbolAtLocation(node);
      if (!symbol && node.parent && ts.isShorthandPropertyAssignment(node.parent)) {
        symbol = checker.getShorthandAssignmentValueSymbol(node.parent);
      }
      if (symbol) names.push([node.getStart(file), key(symbol)]);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { errors: program.getSemanticDiagnostics(file).length, names };
}

const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => process.stdout.write(JSON.stringify(resolve(Buffer.concat(chunks).toString("utf8"))) + "\n"));
