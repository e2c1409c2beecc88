"""A header change that breaks a caller in another file, in the languages whose servers report
such errors here (typescript-language-server, gopls): the language server's delta must name the
caller, `path:line`, on every surface."""

from __future__ import annotations

TS = '''export function greet(name: string): string {
  return "hi " + name;
}

export function count(items: string[]): number {
  return items.length;
}
'''
TS_OLD = 'export function greet(name: string): string {\n  return "hi " + name;\n}'
TS_NEW = 'export function greet(name: string, loud: boolean): string {\n  return loud ? "HI " + name : "hi " + name;\n}'
TS_CALLER = 'import { greet } from "./app";\n\nexport const hello = greet("you");\n'  # broken at use.ts:3

GO = '''package shop

func Total(prices []int, tax int) int {
\tsum := 0
\tfor _, p := range prices {
\t\tsum += p
\t}
\treturn sum * tax
}

func Count(prices []int) int {
\treturn len(prices)
}
'''
GO_OLD = "func Total(prices []int, tax int) int {\n\tsum := 0\n"
GO_NEW = "func Total(prices []int, tax int, discount int) int {\n\tsum := -discount\n"
GO_CALLER = "package shop\n\nfunc Checkout(prices []int) int {\n\treturn Total(prices, 2)\n}\n"  # broken at checkout.go:4
GO_WORKSPACE = {"go.mod": "module shop\n\ngo 1.21\n", "shop.go": GO, "checkout.go": GO_CALLER}
