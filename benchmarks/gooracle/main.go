// Command gooracle is the language matrix's Go oracle: Go's own parser (go/parser) and type
// checker (go/types), standard library only, sharing nothing with the gateway. It reads one Go
// source file on stdin and prints one line of JSON:
//
//	gooracle defs   [[name start, name end, start, end, name path, kind, header, body], ...]
//	                or null when the file does not parse (offsets in bytes; header and body
//	                printed by go/printer, so layout and comments are no change)
//	gooracle refs   {"errors": n, "names": [[offset, key], ...]} or null when it does not
//	                parse: every identifier go/types resolves (Defs and Uses), keyed by the
//	                position of the object it denotes (or its package path and name when the
//	                object is declared elsewhere), and the number of type errors of the file
//	                checked alone (imports that cannot be read offline count, the same before
//	                and after a change).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"io"
	"os"
)

func main() {
	source, err := io.ReadAll(os.Stdin)
	if err != nil || len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gooracle defs|refs < file.go")
		os.Exit(2)
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "input.go", source, parser.SkipObjectResolution)
	var out any
	if err == nil {
		switch os.Args[1] {
		case "defs":
			out = definitions(fset, file)
		case "refs":
			out = references(fset, file)
		default:
			fmt.Fprintln(os.Stderr, "usage: gooracle defs|refs < file.go")
			os.Exit(2)
		}
	}
	encoded, _ := json.Marshal(out)
	fmt.Println(string(encoded))
}

func printed(fset *token.FileSet, node any) string {
	var buffer bytes.Buffer
	if err := printer.Fprint(&buffer, fset, node); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return buffer.String()
}

func receiverName(expr ast.Expr) string {
	switch t := expr.(type) {
	case *ast.StarExpr:
		return receiverName(t.X)
	case *ast.IndexExpr:
		return receiverName(t.X)
	case *ast.IndexListExpr:
		return receiverName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

func definitions(fset *token.FileSet, file *ast.File) []any {
	found := []any{}
	offset := func(pos token.Pos) int { return fset.Position(pos).Offset }
	add := func(name *ast.Ident, start, end token.Pos, path, kind, header, body string) {
		found = append(found, []any{offset(name.Pos()), offset(name.End()), offset(start), offset(end), path, kind, header, body})
	}
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			path := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				path = receiverName(d.Recv.List[0].Type) + "/" + d.Name.Name
			}
			header := printed(fset, &ast.FuncDecl{Recv: d.Recv, Name: d.Name, Type: d.Type})
			body := ""
			if d.Body != nil {
				body = printed(fset, d.Body)
			}
			add(d.Name, d.Pos(), d.End(), path, "function", header, body)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				start, end := spec.Pos(), spec.End()
				if !d.Lparen.IsValid() {
					start, end = d.Pos(), d.End()
				}
				switch s := spec.(type) {
				case *ast.TypeSpec:
					typeDefinition(fset, s, start, end, add)
				case *ast.ValueSpec:
					for i, name := range s.Names {
						if i < len(s.Values) {
							if literal, ok := s.Values[i].(*ast.FuncLit); ok {
								add(name, start, end, name.Name, "function", printed(fset, literal.Type), printed(fset, literal.Body))
							}
						}
					}
				}
			}
		}
	}
	return found
}

type adder func(name *ast.Ident, start, end token.Pos, path, kind, header, body string)

// A type's header is its name, type parameters and `=` of an alias; its body the type it
// stands for. An interface's methods are definitions of their own, as a struct's fields are not.
func typeDefinition(fset *token.FileSet, spec *ast.TypeSpec, start, end token.Pos, add adder) {
	header := spec.Name.Name
	if spec.TypeParams != nil {
		header += printed(fset, spec.TypeParams)
	}
	if spec.Assign.IsValid() {
		header += " ="
	}
	kind := "type"
	switch t := spec.Type.(type) {
	case *ast.StructType:
		kind = "struct"
	case *ast.InterfaceType:
		kind = "interface"
		for _, method := range t.Methods.List {
			if _, ok := method.Type.(*ast.FuncType); ok {
				for _, name := range method.Names {
					add(name, method.Pos(), method.End(), spec.Name.Name+"/"+name.Name, "method", name.Name+printed(fset, method.Type), "")
				}
			}
		}
	}
	add(spec.Name, start, end, spec.Name.Name, kind, header, printed(fset, spec.Type))
}

// An importer that never fails: a package it cannot read offline is an empty one of that path
// (the error is counted once per import, the same before and after a change).
type lenient struct {
	source  types.Importer
	missing int
}

func (l *lenient) Import(path string) (*types.Package, error) {
	if pkg, err := l.source.Import(path); err == nil {
		return pkg, nil
	}
	l.missing++
	name := path
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			name = path[i+1:]
			break
		}
	}
	pkg := types.NewPackage(path, name)
	pkg.MarkComplete()
	return pkg, nil
}

func references(fset *token.FileSet, file *ast.File) map[string]any {
	imports := &lenient{source: importer.ForCompiler(fset, "source", nil)}
	errors := 0
	config := types.Config{Importer: imports, Error: func(error) { errors++ }}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	config.Check(file.Name.Name, fset, []*ast.File{file}, info)
	names := [][]any{}
	key := func(object types.Object) string {
		if object.Pos().IsValid() && fset.File(object.Pos()) == fset.File(file.Pos()) {
			return fmt.Sprintf("%d", fset.Position(object.Pos()).Offset)
		}
		if object.Pkg() != nil {
			return object.Pkg().Path() + "." + object.Name()
		}
		return "universe." + object.Name()
	}
	for _, table := range []map[*ast.Ident]types.Object{info.Defs, info.Uses} {
		for ident, object := range table {
			if object != nil {
				names = append(names, []any{fset.Position(ident.Pos()).Offset, key(object)})
			}
		}
	}
	return map[string]any{"errors": errors + imports.missing, "names": names}
}
