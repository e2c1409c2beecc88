// TypeScript's own formatter (the language service's formatDocument, default settings) on
// the JavaScript read from stdin, written to stdout: polyglot_cuts.py's formatter for JS.
// Usage: node polyglot_format.js PATH/TO/node_modules/typescript < in.js > out.js
const ts = require(process.argv[2]);
let text = require("fs").readFileSync(0, "utf8");
const name = "input.js";
const host = {
  getScriptFileNames: () => [name],
  getScriptVersion: () => "1",
  getScriptSnapshot: (file) => (file === name ? ts.ScriptSnapshot.fromString(text) : undefined),
  getCurrentDirectory: () => "/",
  getCompilationSettings: () => ({ allowJs: true, noLib: true }),
  getDefaultLibFileName: () => "lib.d.ts",
  fileExists: (file) => file === name,
  readFile: (file) => (file === name ? text : undefined),
};
const edits = ts.createLanguageService(host).getFormattingEditsForDocument(name, ts.getDefaultFormatCodeSettings("\n"));
for (const edit of edits.sort((a, b) => b.span.start - a.span.start)) {
  text = text.slice(0, edit.span.start) + edit.newText + text.slice(edit.span.start + edit.span.length);
}
process.stdout.write(text);
