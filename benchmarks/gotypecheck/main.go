// Command gotypecheck type-checks the Go package in a directory (its files and its in-package
// tests) with go/types, the compiler's type checker, and prints every error as
// path:line:column: message. Imports that cannot be found offline are reported and checking
// goes on: verify_real.py compares the errors before and after a change.
package main

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
)

func main() {
	dir := os.Args[1]
	pkg, err := build.ImportDir(dir, build.ImportComment)
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range append(pkg.GoFiles, pkg.TestGoFiles...) {
		file, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.AllErrors)
		if err != nil {
			fmt.Println(err)
		}
		if file != nil {
			files = append(files, file)
		}
	}
	config := types.Config{Importer: importer.ForCompiler(fset, "source", nil), Error: func(err error) { fmt.Println(err) }}
	config.Check(pkg.Name, fset, files, nil)
}
