"""Per-language sources and the edits the gate must judge on them.

Every `old` occurs exactly once in its sample's source. `names` lists name paths that must
appear among the reported definitions of a blocked edit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gateway.surfaces import render

if TYPE_CHECKING:
    from gateway.gate.verdict import Classification


def commands(verdict: Classification) -> tuple[str, ...]:
    """The operations a verdict suggests, as the surfaces spell them (`gateway` command lines)."""
    return tuple(render.command(s) for s in verdict.suggested)


@dataclass(frozen=True)
class Case:
    id: str
    old: str
    new: str
    decision: str
    tool: str | None = None
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sample:
    filename: str
    source: str
    cases: list[Case] = field(default_factory=list)
    definitions: tuple[tuple[str, str], ...] = ()


PYTHON = Sample(
    "account.py",
    '''import functools

CLASS_NAMES = ["class", "def"]  # keywords in strings


class Account:
    """An account.

    def looks_like_code(self): pass
    """

    def __init__(self, owner):
        self.owner = owner
        self.balance = 0

    @functools.cache
    @staticmethod
    def fee(amount):
        return amount // 100

    async def refresh(self):
        # class Foo: a comment mentioning class and def
        data = await fetch(self.owner)
        return data

    def classify(self):
        classify = "def"
        return classify


def outer():
    def inner():
        return 1
    return inner()
''',
    [
        Case("body_only", "        self.owner = owner\n        self.balance = 0",
             "        self.owner = owner.strip()\n        self.balance = 10", "allow"),
        Case("comment_mentions_keywords",
             "        # class Foo: a comment mentioning class and def\n        data = await fetch(self.owner)",
             "        # def bar(): another comment\n        data = await fetch(self.owner, True)", "allow"),
        Case("docstring_mentions_def", '    """An account.\n\n    def looks_like_code(self): pass',
             '    """An account of money.\n\n    class NotReal: pass', "allow"),
        Case("string_and_keyword_identifier", '        classify = "def"\n        return classify',
             '        classify = "class Foo:\\n    pass"\n        return classify.upper()', "allow"),
        Case("single_line_header", "    async def refresh(self):", "    async def refresh(self, force=False):", "allow"),
        Case("decorators_only", "    @functools.cache\n    @staticmethod", "    @staticmethod", "block", "replace_symbol",
             ("Account/fee",)),
        Case("decorated_method", "    @functools.cache\n    @staticmethod\n    def fee(amount):\n        return amount // 100",
             "    @staticmethod\n    def fee(amount):\n        return amount // 50", "block", "replace_symbol",
             ("Account/fee",)),
        Case("async_method", "    async def refresh(self):\n        # class Foo: a comment mentioning class and def",
             "    async def refresh(self, force=False):\n        # refreshed", "block", "replace_symbol",
             ("Account/refresh",)),
        Case("remove_method", '    def classify(self):\n        classify = "def"\n        return classify\n', "",
             "block", "remove_symbol", ("Account/classify",)),
        Case("insert_after_function", "    return inner()\n", "    return inner()\n\n\ndef added():\n    return 2\n",
             "block", "insert_code", ("added",)),
        Case("nested_function_body", "    def inner():\n        return 1", "    def inner():\n        return 2",
             "allow"),
        Case("nested_function_header", "    def inner():\n        return 1", "    def inner(x=0):\n        return 2",
             "block", "replace_symbol", ("outer/inner",)),
        Case("splice_method_into_body", "        self.balance = 0",
             "        self.balance = 0\n\n    def deposit(self, amount):\n        self.balance += amount",
             "block", "insert_code", ("Account/deposit",)),
        Case("single_line_old_multi_line_new", "        self.balance = 0",
             "        self.balance = 0\n        self.history = []", "allow"),
        Case("body_change_with_next_header_as_context", "        return amount // 100\n\n    async def refresh(self):",
             "        return amount // 50\n\n    async def refresh(self):", "allow"),
        Case("span_across_two_definitions", "        return amount // 100\n\n    async def refresh(self):",
             "        return amount // 50\n\n    async def refresh(self, force=False):", "block", "replace_symbol",
             ("Account/refresh",)),
    ],
    (("class", "Account"), ("method", "Account/__init__"), ("method", "Account/fee"),
     ("method", "Account/refresh"), ("method", "Account/classify"), ("function", "outer"),
     ("function", "outer/inner")),
)

TYPESCRIPT = Sample(
    "shapes.ts",
    '''import { Component, Input } from "./decorators";

// function helper() {} mentioned in a comment
const KEYWORDS = "class interface enum function";

export interface Shape {
  area(): number;
}

export type Id = string | number;

export enum Color {
  Red,
  Green,
}

@Component({ selector: "app" })
export class Circle implements Shape {
  @Input() radius = 1;

  constructor(private readonly label: string) {}

  @Input()
  area(): number {
    const classify = Math.PI;
    return classify * this.radius ** 2;
  }

  describe = (): string => {
    return `${this.label}: ${this.area()}`;
  };
}

export const double = async (x: number): Promise<number> => {
  return x * 2;
};

function plain(a: number): number {
  const functionName = "function";
  return a + functionName.length;
}
''',
    [
        Case("body_only", "    const classify = Math.PI;\n    return classify * this.radius ** 2;",
             "    const classify = Math.PI * 2;\n    return classify * this.radius;", "allow"),
        Case("comment_and_string",
             '// function helper() {} mentioned in a comment\nconst KEYWORDS = "class interface enum function";',
             '// class Helper {} in a comment\nconst KEYWORDS = "function class";', "allow"),
        Case("enum_members", "  Red,\n  Green,", "  Red,\n  Green,\n  Blue,", "allow"),
        Case("single_line_type", "export type Id = string | number;", "export type Id = string;", "allow"),
        Case("exported_arrow_body",
             "export const double = async (x: number): Promise<number> => {\n  return x * 2;\n};",
             "export const double = async (x: number): Promise<number> => {\n  return x + x;\n};", "allow"),
        Case("exported_arrow_function",
             "export const double = async (x: number): Promise<number> => {\n  return x * 2;\n};",
             "export const double = async (x: number, y = 2): Promise<number> => {\n  return x * y;\n};",
             "block", "replace_symbol", ("double",)),
        Case("decorated_method_body", "  @Input()\n  area(): number {", "  @Input()\n  area(): number {\n    // changed",
             "allow"),
        Case("decorated_method", "  @Input()\n  area(): number {", "  @Input({ required: true })\n  area(): number {",
             "block", "replace_symbol", ("Circle/area",)),
        Case("field_arrow_method", "  describe = (): string => {\n    return `${this.label}: ${this.area()}`;",
             "  describe = (verbose = false): string => {\n    return this.label;", "block", "replace_symbol",
             ("Circle/describe",)),
        Case("interface_field", "export interface Shape {\n  area(): number;\n}",
             "export interface Shape {\n  area(): number;\n  name: string;\n}", "allow"),
        Case("interface_method", "export interface Shape {\n  area(): number;\n}",
             "export interface Shape {\n  area(): number;\n  scale(by: number): Shape;\n}", "block", "insert_code",
             ("Shape/scale",)),
        Case("remove_function",
             'function plain(a: number): number {\n  const functionName = "function";\n  return a + functionName.length;\n}\n',
             "", "block", "remove_symbol", ("plain",)),
        Case("insert_function", "  return a + functionName.length;\n}\n",
             "  return a + functionName.length;\n}\n\nexport function triple(a: number): number {\n  return a * 3;\n}\n",
             "block", "insert_code", ("triple",)),
    ],
    (("interface", "Shape"), ("type", "Id"), ("enum", "Color"), ("class", "Circle"),
     ("method", "Circle/constructor"), ("method", "Circle/area"), ("method", "Circle/describe"),
     ("function", "double"), ("function", "plain")),
)

TSX = Sample(
    "greeting.tsx",
    '''import React from "react";

type Props = { name: string };

export function Greeting({ name }: Props) {
  const label = "class function";
  return <div className="greeting">{label} {name}</div>;
}

export const Card = ({ name }: Props) => {
  function Inner() {
    return <span>{name}</span>;
  }
  return <Inner />;
};
''',
    [
        Case("jsx_body_only", '  const label = "class function";\n  return <div className="greeting">{label} {name}</div>;',
             '  const label = "function";\n  return <p className="greeting">{label} {name}</p>;', "allow"),
        Case("component", "export function Greeting({ name }: Props) {\n  const label",
             "export function Greeting({ name, title }: Props & { title: string }) {\n  const label",
             "block", "replace_symbol", ("Greeting",)),
        Case("nested_component_body", "  function Inner() {\n    return <span>{name}</span>;\n  }",
             "  function Inner() {\n    return <b>{name}</b>;\n  }", "allow"),
        Case("nested_component", "  function Inner() {\n    return <span>{name}</span>;\n  }",
             "  function Inner({ bold }: { bold: boolean }) {\n    return <b>{name}</b>;\n  }", "block", "replace_symbol",
             ("Card/Inner",)),
        Case("insert_component", "  return <Inner />;\n};\n",
             "  return <Inner />;\n};\n\nexport const Footer = () => <footer />;\n", "block", "insert_code", ("Footer",)),
    ],
    (("type", "Props"), ("function", "Greeting"), ("function", "Card"), ("function", "Card/Inner")),
)

JAVASCRIPT = Sample(
    "store.js",
    '''const express = require("express");

// class Router is mentioned here only
function handler(req, res) {
  res.send("function class");
  res.end();
}

class Store {
  #items = [];

  add(item) {
    this.#items.push(item);
  }

  static create() {
    return new Store();
  }
}

module.exports.middleware = function (req, res, next) {
  next();
};

const api = {
  list() {
    return [];
  },
  get: async (id) => {
    return id;
  },
};
''',
    [
        Case("body_only", '  res.send("function class");\n  res.end();', '  res.send("class");\n  res.end(200);', "allow"),
        Case("comment_above_header", "// class Router is mentioned here only\nfunction handler",
             "// function router() {}\nfunction handler", "allow"),
        Case("comment_and_header", "// class Router is mentioned here only\nfunction handler(req, res)",
             "// function router() {}\nasync function handler(req, res)", "block", "replace_symbol", ("handler",)),
        Case("method_body", "  add(item) {\n    this.#items.push(item);", "  add(item) {\n    this.#items.unshift(item);",
             "allow"),
        Case("method", "  add(item) {\n    this.#items.push(item);", "  add(item, front) {\n    this.#items.unshift(item);",
             "block", "replace_symbol", ("Store/add",)),
        Case("static_method", "  static create() {\n    return new Store();\n  }\n",
             "", "block", "remove_symbol", ("Store/create",)),
        Case("exports_assignment_body", "module.exports.middleware = function (req, res, next) {\n  next();",
             "module.exports.middleware = function (req, res, next) {\n  next(null);", "allow"),
        Case("exports_assignment_header", "module.exports.middleware = function (req, res, next) {\n  next();",
             "module.exports.middleware = function (req, res) {\n  next();", "block", "replace_symbol",
             ("middleware",)),
        Case("object_method", "  list() {\n    return [];", "  list(page) {\n    return [];", "block", "replace_symbol",
             ("list",)),
        Case("object_arrow", "  get: async (id) => {\n    return id;", "  get: (id) => {\n    return `${id}`;",
             "block", "replace_symbol", ("get",)),
        Case("object_body_only", "    return [];\n  },", "    return [0];\n  },", "allow"),
    ],
    (("function", "handler"), ("class", "Store"), ("method", "Store/add"), ("method", "Store/create"),
     ("function", "middleware")),
)

GO = Sample(
    "shapes.go",
    '''package shapes

import "fmt"

// func fake() {} in a comment
type Shape interface {
	Area() float64
}

type Rect struct {
	W, H float64
	Name string
}

type (
	ID    int
	Label = string
)

func (r *Rect) Area() float64 {
	funcName := "func type struct"
	return r.W*r.H + float64(len(funcName))
}

func Describe(s Shape) string {
	return fmt.Sprintf("%v", s.Area())
}
''',
    [
        Case("body_only", '\tfuncName := "func type struct"\n\treturn r.W*r.H + float64(len(funcName))',
             '\tfuncName := "func"\n\treturn r.W * r.H', "allow"),
        Case("struct_fields", "\tW, H float64\n\tName string", "\tW, H float64\n\tName string\n\tTag  string", "allow"),
        Case("comment_above_header", "// func fake() {} in a comment\ntype Shape interface {",
             "// type Fake struct{} in a comment\ntype Shape interface {", "allow"),
        Case("interface_to_struct", "// func fake() {} in a comment\ntype Shape interface {\n\tArea() float64\n}",
             "// func fake() {} in a comment\ntype Shape struct {\n\tArea float64\n}", "block", "replace_symbol", ("Shape",)),
        Case("pointer_receiver_body", "func (r *Rect) Area() float64 {\n\tfuncName",
             "func (r *Rect) Area() float64 {\n\t// area\n\tfuncName", "allow"),
        Case("pointer_receiver_method", "func (r *Rect) Area() float64 {\n\tfuncName",
             "func (r Rect) Area() float64 {\n\tfuncName", "block", "replace_symbol", ("Rect/Area",)),
        Case("grouped_types_targets", "\tID    int\n\tLabel = string", "\tID    int64\n\tLabel = []string", "allow"),
        Case("grouped_types", "\tID    int\n\tLabel = string", "\tIdent int\n\tLabel = string", "block",
             "rename_symbol", ("ID",)),
        Case("remove_function", 'func Describe(s Shape) string {\n\treturn fmt.Sprintf("%v", s.Area())\n}\n', "",
             "block", "remove_symbol", ("Describe",)),
        Case("single_line_header", "func Describe(s Shape) string {", "func Describe(s Shape) (string, error) {", "allow"),
        Case("insert_function", '\treturn fmt.Sprintf("%v", s.Area())\n}\n',
             '\treturn fmt.Sprintf("%v", s.Area())\n}\n\nfunc Twice(x int) int {\n\treturn 2 * x\n}\n',
             "block", "insert_code", ("Twice",)),
    ],
    (("interface", "Shape"), ("struct", "Rect"), ("type", "ID"), ("type", "Label"), ("method", "Rect/Area"),
     ("function", "Describe")),
)

RUST = Sample(
    "point.rs",
    '''use std::fmt;

/// A point; fn and struct are words here.
#[derive(Debug, Clone)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

impl Point {
    pub fn new(x: i32, y: i32) -> Self {
        let fn_name = "fn impl";
        Point { x, y }
    }

    #[inline]
    pub fn norm(&self) -> i32 {
        self.x.abs() + self.y.abs()
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

pub trait Shape {
    fn area(&self) -> f64;
}

mod tests {
    #[test]
    fn it_works() {
        assert_eq!(2 + 2, 4);
    }
}
''',
    [
        Case("body_only", '        let fn_name = "fn impl";\n        Point { x, y }',
             '        let fn_name = "struct";\n        Point { x: x + 1, y }', "allow"),
        Case("struct_fields", "    pub x: i32,\n    pub y: i32,", "    pub x: i64,\n    pub y: i64,", "allow"),
        Case("attribute_and_header", "    #[inline]\n    pub fn norm(&self) -> i32 {",
             "    #[inline(always)]\n    pub fn norm(&self) -> i32 {", "block", "replace_symbol", ("Point/norm",)),
        Case("derive_struct", "#[derive(Debug, Clone)]\npub struct Point {", "#[derive(Debug)]\npub struct Point {",
             "block", "replace_symbol", ("Point",)),
        Case("trait_method", "pub trait Shape {\n    fn area(&self) -> f64;",
             "pub trait Shape {\n    fn area(&self) -> f64;\n    fn name(&self) -> String;", "block",
             "insert_code", ("Shape/name",)),
        Case("remove_test", "    #[test]\n    fn it_works() {\n        assert_eq!(2 + 2, 4);\n    }\n", "",
             "block", "remove_symbol", ("tests/it_works",)),
        Case("doc_comment", "/// A point; fn and struct are words here.\n#[derive(Debug, Clone)]",
             "/// A point in the plane.\n#[derive(Debug, Clone)]", "allow"),
    ],
    (("struct", "Point"), ("impl", "Point"), ("method", "Point/new"), ("method", "Point/norm"),
     ("method", "Point/fmt"), ("trait", "Shape"), ("method", "Shape/area"), ("module", "tests"),
     ("function", "tests/it_works")),
)

JAVA = Sample(
    "Inventory.java",
    '''package demo;

import java.util.List;

/**
 * The word class in javadoc: class Fake {}
 */
@SuppressWarnings("unchecked")
public class Inventory {
    private final List<String> items;

    public Inventory(List<String> items) {
        this.items = items;
    }

    @Override
    public String toString() {
        String classify = "class interface enum";
        return classify + items;
    }

    public int count() {
        return items.size();
    }

    public int count(String prefix) {
        return (int) items.stream().filter(s -> s.startsWith(prefix)).count();
    }

    enum Kind { SMALL, LARGE }

    interface Listener {
        void changed();
    }
}
''',
    [
        Case("body_only", '        String classify = "class interface enum";\n        return classify + items;',
             '        String classify = "enum";\n        return classify + items.size();', "allow"),
        Case("javadoc", "/**\n * The word class in javadoc: class Fake {}", "/**\n * An inventory: interface Fake {}",
             "allow"),
        Case("keywordless_method_body", "    public int count() {\n        return items.size();",
             "    public int count() {\n        return items.isEmpty() ? 0 : items.size();", "allow"),
        Case("keywordless_method", "    public int count() {\n        return items.size();",
             "    public long count() {\n        return items.isEmpty() ? 0 : items.size();", "block",
             "replace_symbol", ("Inventory/count",)),
        Case("annotated_method_body", "    @Override\n    public String toString() {",
             "    @Override\n    public String toString() { // described", "allow"),
        Case("annotated_method", "    @Override\n    public String toString() {",
             "    @Deprecated\n    public String toString() {", "block", "replace_symbol",
             ("Inventory/toString",)),
        Case("constructor", "    public Inventory(List<String> items) {\n        this.items = items;\n    }\n", "",
             "block", "remove_symbol", ("Inventory/Inventory",)),
        Case("insert_method", "        return items.size();\n    }\n",
             "        return items.size();\n    }\n\n    public boolean isEmpty() {\n        return items.isEmpty();\n    }\n",
             "block", "insert_code", ("Inventory/isEmpty",)),
        Case("single_line_signature", "    public int count(String prefix) {", "    public long count(String prefix) {",
             "allow"),
    ],
    (("class", "Inventory"), ("method", "Inventory/Inventory"), ("method", "Inventory/toString"),
     ("method", "Inventory/count"), ("enum", "Inventory/Kind"), ("interface", "Inventory/Listener"),
     ("method", "Inventory/Listener/changed")),
)

KOTLIN = Sample(
    "User.kt",
    '''package demo

// fun fake() = 1 and class Fake in a comment
@JvmInline
value class Meters(val value: Double)

data class User(val name: String) {
    fun greet(): String {
        val funName = "fun class"
        return "hi $name $funName"
    }

    companion object Factory {
        fun anonymous() = User("anon")
    }
}

fun topLevel(x: Int): Int {
    val y = x + 1
    return y * 2
}

object Registry {
    val users = mutableListOf<User>()
}
''',
    [
        Case("body_only", '        val funName = "fun class"\n        return "hi $name $funName"',
             '        val funName = "fun"\n        return "hello $name"', "allow"),
        Case("comment", "// fun fake() = 1 and class Fake in a comment\n@JvmInline",
             "// interface Fake in a comment\n@JvmInline", "allow"),
        Case("method_body", "    fun greet(): String {\n        val funName", "    fun greet(): String {\n        val funName2",
             "allow"),
        Case("method", "    fun greet(): String {\n        val funName", "    fun greet(loud: Boolean): String {\n        val funName",
             "block", "replace_symbol", ("User/greet",)),
        Case("annotated_class", "@JvmInline\nvalue class Meters(val value: Double)",
             "@JvmInline\nvalue class Meters(val value: Float)", "block", "replace_symbol", ("Meters",)),
        Case("remove_function", "fun topLevel(x: Int): Int {\n    val y = x + 1\n    return y * 2\n}\n", "",
             "block", "remove_symbol", ("topLevel",)),
        Case("insert_function", "    val users = mutableListOf<User>()\n}\n",
             "    val users = mutableListOf<User>()\n}\n\nfun count() = Registry.users.size\n", "block",
             "insert_code", ("count",)),
    ],
    (("class", "Meters"), ("class", "User"), ("method", "User/greet"), ("class", "User/Factory"),
     ("function", "topLevel"), ("class", "Registry")),
)

C = Sample(
    "geometry.c",
    '''#include <stdio.h>

/* struct fake { int x; }; in a comment */
struct point {
    int x;
    int y;
};

typedef struct {
    double w;
    double h;
} rect;

static int *find(int *items, int n) {
    const char *kw = "struct enum";
    return n > 0 ? items : NULL;
}

int area(rect r);

int area(rect r) {
    int a = (int)(r.w * r.h);
    return a;
}
''',
    [
        Case("body_only", "    int a = (int)(r.w * r.h);\n    return a;", "    int a = (int)(r.w * r.h + 0.5);\n    return a;",
             "allow"),
        Case("struct_fields", "    int x;\n    int y;", "    long x;\n    long y;", "allow"),
        Case("comment_above_header", "/* struct fake { int x; }; in a comment */\nstruct point {",
             "/* another comment */\nstruct point {", "allow"),
        Case("comment_and_header", "/* struct fake { int x; }; in a comment */\nstruct point {",
             "/* another comment */\nstruct pt {", "block", "rename_symbol", ("point",)),
        Case("keywordless_function_body", "int area(rect r) {\n    int a", "int area(rect r) {\n    int b = 0;\n    int a",
             "allow"),
        Case("keywordless_function", "int area(rect r) {\n    int a", "long area(rect r) {\n    int b = 0;\n    int a",
             "block", "replace_symbol", ("area",)),
        Case("pointer_function", "static int *find(int *items, int n) {\n    const char",
             "static int **find(int *items, int n) {\n    /* find */\n    const char", "block", "replace_symbol",
             ("find",)),
        Case("typedef", "    double h;\n} rect;", "    double h;\n} rectangle;", "block", "rename_symbol", ("rect",)),
        Case("insert_function", "    return a;\n}\n", "    return a;\n}\n\nint perimeter(rect r) {\n    return 0;\n}\n",
             "block", "insert_code", ("perimeter",)),
    ],
    (("struct", "point"), ("type", "rect"), ("function", "find"), ("function", "area")),
)

CPP = Sample(
    "circle.cpp",
    '''#include <string>

namespace geo {

// class Fake {}; in a comment
class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
};

class Circle : public Shape {
public:
    explicit Circle(double r) : r_(r) {}
    double area() const override {
        const char *kw = "class struct";
        return 3.14159 * r_ * r_;
    }
    std::string name() const;

private:
    double r_;
};

std::string Circle::name() const {
    std::string n = "circle";
    return n;
}

template <typename T>
T twice(T value) {
    return value * 2;
}

}  // namespace geo
''',
    [
        Case("body_only", '        const char *kw = "class struct";\n        return 3.14159 * r_ * r_;',
             '        const char *kw = "struct";\n        return 3.14 * r_ * r_;', "allow"),
        Case("inline_method_body", "    double area() const override {\n        const char",
             "    double area() const override {\n        // area\n        const char", "allow"),
        Case("inline_method", "    double area() const override {\n        const char",
             "    double area() const final {\n        // area\n        const char", "block", "replace_symbol",
             ("geo/Circle/area",)),
        Case("out_of_line_method", 'std::string Circle::name() const {\n    std::string n = "circle";',
             'const std::string& Circle::name() const {\n    std::string n = "round";', "block", "replace_symbol",
             ("geo/Circle/name",)),
        Case("template_function", "template <typename T>\nT twice(T value) {\n    return value * 2;\n}\n", "",
             "block", "remove_symbol", ("geo/twice",)),
        Case("out_of_line_body_only", '    std::string n = "circle";\n    return n;',
             '    std::string n = "class";\n    return n + "!";', "allow"),
        Case("insert_function", "    return value * 2;\n}\n",
             "    return value * 2;\n}\n\ninline int thrice(int v) {\n    return v * 3;\n}\n", "block", "insert_code",
             ("geo/thrice",)),
    ],
    (("module", "geo"), ("class", "geo/Shape"), ("class", "geo/Circle"), ("method", "geo/Circle/area"),
     ("function", "geo/Circle/name"), ("function", "geo/twice")),
)

CSHARP = Sample(
    "Order.cs",
    '''using System;

namespace Shop
{
    // class Fake { } in a comment
    [Serializable]
    public class Order
    {
        public decimal Total { get; set; }

        public Order(decimal total)
        {
            Total = total;
        }

        [Obsolete("use ApplyDiscount")]
        public void Discount(decimal pct)
        {
            var classify = "class struct";
            Total -= Total * pct;
        }

        public override string ToString()
        {
            return $"Order {Total}";
        }
    }

    public record Item(string Name, decimal Price);
}
''',
    [
        Case("body_only", '            var classify = "class struct";\n            Total -= Total * pct;',
             '            var classify = "struct";\n            Total -= Total * pct / 100;', "allow"),
        Case("attributed_method", '        [Obsolete("use ApplyDiscount")]\n        public void Discount(decimal pct)',
             "        public void Discount(decimal pct)", "block", "replace_symbol", ("Shop/Order/Discount",)),
        Case("attributed_class", "    [Serializable]\n    public class Order", "    [Serializable, Obsolete]\n    public class Order",
             "block", "replace_symbol", ("Shop/Order",)),
        Case("keywordless_remove", '        public override string ToString()\n        {\n            return $"Order {Total}";\n        }\n',
             "", "block", "remove_symbol", ("Shop/Order/ToString",)),
        Case("comment", "    // class Fake { } in a comment\n    [Serializable]", "    // struct Fake in a comment\n    [Serializable]",
             "allow"),
    ],
    (("module", "Shop"), ("class", "Shop/Order"), ("method", "Shop/Order/Order"), ("method", "Shop/Order/Discount"),
     ("method", "Shop/Order/ToString"), ("class", "Shop/Item")),
)

RUBY = Sample(
    "invoice.rb",
    '''require "json"

# def fake; end and class Fake in a comment
module Billing
  class Invoice
    attr_reader :total

    def initialize(total)
      @total = total
    end

    def self.from_json(text)
      data = JSON.parse(text)
      new(data["total"])
    end

    def to_s
      label = "def class"
      "#{label} #{total}"
    end
  end
end
''',
    [
        Case("body_only", '      label = "def class"\n      "#{label} #{total}"', '      label = "def"\n      "#{label}: #{total}"',
             "allow"),
        Case("comment_above_header", "# def fake; end and class Fake in a comment\nmodule Billing",
             "# module Fake in a comment\nmodule Billing", "allow"),
        Case("comment_and_header", "# def fake; end and class Fake in a comment\nmodule Billing",
             "# module Fake in a comment\nmodule Billings", "block", "rename_symbol", ("Billing",)),
        Case("singleton_method_body", "    def self.from_json(text)\n      data = JSON.parse(text)",
             "    def self.from_json(text)\n      data = JSON.parse(text, symbolize_names: true)", "allow"),
        Case("singleton_method", "    def self.from_json(text)\n      data = JSON.parse(text)",
             "    def self.from_json(text, strict: false)\n      data = JSON.parse(text, symbolize_names: true)", "block",
             "replace_symbol", ("Billing/Invoice/from_json",)),
        Case("remove_method", "    def initialize(total)\n      @total = total\n    end\n", "", "block", "remove_symbol",
             ("Billing/Invoice/initialize",)),
        Case("insert_method", '      "#{label} #{total}"\n    end\n',
             '      "#{label} #{total}"\n    end\n\n    def paid?\n      total.zero?\n    end\n', "block",
             "insert_code", ("Billing/Invoice/paid?",)),
    ],
    (("module", "Billing"), ("class", "Billing/Invoice"), ("method", "Billing/Invoice/initialize"),
     ("method", "Billing/Invoice/from_json"), ("method", "Billing/Invoice/to_s")),
)

BASH = Sample(
    "deploy.sh",
    '''#!/usr/bin/env bash
set -euo pipefail

# greet() { in a comment }
greet() {
  local name="$1"
  echo "hello $name"
}

function shout {
  greet "$1" | tr a-z A-Z
}

shout "world"
''',
    [
        Case("body_only", '  echo "hello $name"', '  echo "hi $name"', "allow"),
        Case("top_level_command", 'shout "world"', 'shout "you"', "allow"),
        Case("comment_above_header", "# greet() { in a comment }\ngreet() {", "# greet in a comment\ngreet() {", "allow"),
        Case("rename_function", "greet() {\n  local", "welcome() {\n  local", "block", "rename_symbol", ("greet",)),
        Case("remove_function", "function shout {\n  greet \"$1\" | tr a-z A-Z\n}\n\n", "", "block", "remove_symbol", ("shout",)),
        Case("insert_function", 'shout "world"\n', 'whisper() {\n  echo "$1"\n}\n\nshout "world"\n', "block", "insert_code",
             ("whisper",)),
    ],
    (("function", "greet"), ("function", "shout")),
)

SAMPLES = {
    "python": PYTHON,
    "typescript": TYPESCRIPT,
    "tsx": TSX,
    "javascript": JAVASCRIPT,
    "go": GO,
    "rust": RUST,
    "java": JAVA,
    "kotlin": KOTLIN,
    "c": C,
    "cpp": CPP,
    "csharp": CSHARP,
    "ruby": RUBY,
    "bash": BASH,
}
