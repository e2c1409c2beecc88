"""Symbol operations and the exact file text each must produce, per fixture project.

An expected result is written as (file, old, new) replacements applied to the fixture's
original text, so every assertion is on the whole file.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OpCase:
    id: str
    operation: str
    args: tuple[str, ...]
    changes: tuple[tuple[str, str, str], ...]


SERVER_LANGUAGES = {
    "python": "lsp:zuban",
    "typescript": "lsp:typescript-language-server",
    "tsx": "lsp:typescript-language-server",
    "javascript": "lsp:typescript-language-server",
    "go": "lsp:gopls",
    "c": "lsp:clangd",
    "cpp": "lsp:clangd",
    "bash": "lsp:bash-language-server",
}

PY = "pkg/shapes.py"
TS = "src/shapes.ts"

CASES: dict[str, list[OpCase]] = {
    "python": [
        OpCase("replace_decorated_bringing_decorators", "replace_symbol",
               ("Shape/unit", PY, '@staticmethod\ndef unit():\n    return Shape("one")\n'),
               ((PY, '    @functools.cache\n    @staticmethod\n    def unit():\n        return Shape("unit")',
                 '    @staticmethod\n    def unit():\n        return Shape("one")'),)),
        OpCase("replace_decorated_keeping_decorators", "replace_symbol",
               ("Shape/unit", PY, 'def unit():\n    return Shape("x")'),
               ((PY, '        return Shape("unit")', '        return Shape("x")'),)),
        OpCase("replace_async_method", "replace_symbol",
               ("Shape/describe", PY, "async def describe(self):\n    return self.name\n"),
               ((PY, '        # a comment inside the body\n        return f"shape {self.name}"', "        return self.name"),)),
        OpCase("replace_nested_class_method", "replace_symbol",
               ("Meta/label", PY, 'def label(self):\n    return "m"'),
               ((PY, '            return "meta"', '            return "m"'),)),
        OpCase("remove_decorated", "remove_symbol", ("Shape/unit", PY),
               ((PY, '    @functools.cache\n    @staticmethod\n    def unit():\n        return Shape("unit")\n\n', ""),)),
        OpCase("remove_nested_class", "remove_symbol", ("Shape/Meta", PY),
               ((PY, '\n    class Meta:\n        ordering = ["name"]\n\n        def label(self):\n            return "meta"\n', ""),)),
        OpCase("insert_after_function", "insert_code", ("area", PY, "def volume(w, h, d):\n    return w * h * d", "after"),
               ((PY, "    return width * height\n", "    return width * height\n\n\ndef volume(w, h, d):\n    return w * h * d\n"),)),
        OpCase("insert_before_method", "insert_code",
               ("Shape/describe", PY, "def size(self):\n    return len(self.name)\n", "before"),
               ((PY, "    async def describe", "    def size(self):\n        return len(self.name)\n\n    async def describe"),)),
        OpCase("rename_across_files", "rename_symbol", ("area", PY, "surface"),
               ((PY, "def area(", "def surface("),
                ("pkg/use.py", "import area", "import surface"),
                ("pkg/use.py", "sum(area(", "sum(surface("))),
    ],
    "typescript": [
        OpCase("replace_method_keeping_decorator", "replace_symbol",
               ("Circle/area", TS, "area(): number {\n  return 3.14 * this.radius ** 2;\n}"),
               ((TS, "    return Math.PI * this.radius ** 2;", "    return 3.14 * this.radius ** 2;"),)),
        OpCase("replace_exported_arrow", "replace_symbol",
               ("double", TS, "export const double = (x: number): number => x + x;"),
               ((TS, "export const double = (x: number): number => {\n  return x * 2;\n};",
                 "export const double = (x: number): number => x + x;"),)),
        OpCase("replace_overload_implementation", "replace_symbol",
               ("pad[2]", TS, "export function pad(value: string | number): string {\n  return String(value).padStart(8);\n}"),
               ((TS, "padStart(4)", "padStart(8)"),)),
        OpCase("remove_method", "remove_symbol", ("Circle/scale", TS),
               ((TS, "\n\n  scale(factor: number): Circle {\n    return new Circle(this.radius * factor);\n  }", ""),)),
        OpCase("insert_method_after", "insert_code",
               ("Circle/scale", TS, "grow(): Circle {\n  return this.scale(2);\n}", "after"),
               ((TS, "    return new Circle(this.radius * factor);\n  }\n",
                 "    return new Circle(this.radius * factor);\n  }\n\n  grow(): Circle {\n    return this.scale(2);\n  }\n"),)),
        OpCase("rename_across_files", "rename_symbol", ("double", TS, "twice"),
               ((TS, "export const double", "export const twice"),
                ("src/use.ts", "import { double }", "import { twice }"),
                ("src/use.ts", "double(double(x))", "twice(twice(x))"))),
    ],
    "tsx": [
        OpCase("replace_nested_function_in_component", "replace_symbol",
               ("Card/Title", "src/App.tsx", "function Title() {\n  return <i>{name}</i>;\n}"),
               (("src/App.tsx", "    return <b>{name}</b>;", "    return <i>{name}</i>;"),)),
        OpCase("replace_component", "replace_symbol",
               ("Greeting", "src/App.tsx", "export function Greeting({ name }: Props) {\n  return <h2>{name}</h2>;\n}"),
               (("src/App.tsx", "  return <h1>Hello {name}</h1>;", "  return <h2>{name}</h2>;"),)),
        OpCase("insert_component", "insert_code",
               ("Greeting", "src/App.tsx", "export const Footer = () => <footer />;", "after"),
               (("src/App.tsx", "</h1>;\n}\n", "</h1>;\n}\n\nexport const Footer = () => <footer />;\n"),)),
        OpCase("remove_component", "remove_symbol", ("Greeting", "src/App.tsx"),
               (("src/App.tsx", "export function Greeting({ name }: Props) {\n  return <h1>Hello {name}</h1>;\n}\n\n", ""),)),
    ],
    "javascript": [
        OpCase("replace_method", "replace_symbol",
               ("Store/add", "src/store.js", "add(item) {\n  this.items.unshift(item);\n}"),
               (("src/store.js", "this.items.push(item);", "this.items.unshift(item);"),)),
        OpCase("replace_jsx_function", "replace_symbol",
               ("List", "src/view.jsx", "export function List({ items }) {\n  return <ol>{items.length}</ol>;\n}"),
               (("src/view.jsx", "  return <ul>{items.map((item) => <li key={item}>{item}</li>)}</ul>;",
                 "  return <ol>{items.length}</ol>;"),)),
        OpCase("remove_function", "remove_symbol", ("createStore", "src/store.js"),
               (("src/store.js", "\n\nexport function createStore() {\n  return new Store();\n}", ""),)),
    ],
    "go": [
        OpCase("replace_pointer_receiver_method", "replace_symbol",
               ("Rect/Area", "shapes.go", "func (r *Rect) Area() float64 {\n\treturn r.H * r.W\n}"),
               (("shapes.go", "\treturn r.W * r.H\n", "\treturn r.H * r.W\n"),)),
        OpCase("replace_type_declaration", "replace_symbol", ("Label", "shapes.go", "type Label = string"),
               (("shapes.go", "type Label string", "type Label = string"),)),
        OpCase("replace_struct_with_doc", "replace_symbol",
               ("Rect", "shapes.go", "// Rect is a box.\ntype Rect struct {\n\tW, H, D float64\n}"),
               (("shapes.go", "// Rect is a rectangle.\ntype Rect struct {\n\tW, H float64\n}",
                 "// Rect is a box.\ntype Rect struct {\n\tW, H, D float64\n}"),)),
        OpCase("remove_value_receiver_method", "remove_symbol", ("Rect/Scale", "shapes.go"),
               (("shapes.go", "func (r Rect) Scale(f float64) Rect {\n\treturn Rect{r.W * f, r.H * f}\n}\n\n", ""),)),
        OpCase("remove_method_with_doc", "remove_symbol", ("Rect/Area", "shapes.go"),
               (("shapes.go", "// Area returns the area.\nfunc (r *Rect) Area() float64 {\n\treturn r.W * r.H\n}\n\n", ""),)),
        OpCase("insert_before_function", "insert_code",
               ("Describe", "shapes.go", "func Square(s float64) *Rect {\n\treturn &Rect{s, s}\n}", "before"),
               (("shapes.go", "func Describe", "func Square(s float64) *Rect {\n\treturn &Rect{s, s}\n}\n\nfunc Describe"),)),
        OpCase("rename_method_across_files", "rename_symbol", ("Rect/Area", "shapes.go", "Surface"),
               (("shapes.go", "// Area returns the area.\nfunc (r *Rect) Area()", "// Surface returns the area.\nfunc (r *Rect) Surface()"),
                ("use.go", "r.Area()", "r.Surface()"))),
    ],
    "c": [
        OpCase("replace_function", "replace_symbol",
               ("square", "geometry.c", "static int square(int v) {\n    return v * v * 1;\n}"),
               (("geometry.c", "    return v * v;", "    return v * v * 1;"),)),
        OpCase("replace_struct", "replace_symbol", ("point", "geometry.c", "struct point {\n    long x;\n    long y;\n}"),
               (("geometry.c", "    int x;\n    int y;", "    long x;\n    long y;"),)),
        OpCase("replace_struct_bringing_semicolon", "replace_symbol",
               ("point", "geometry.c", "struct point {\n    long x;\n    long y;\n};"),
               (("geometry.c", "    int x;\n    int y;", "    long x;\n    long y;"),)),
        OpCase("remove_function", "remove_symbol", ("distance2", "geometry.c"),
               (("geometry.c", "\n\nint distance2(struct point a, struct point b) {\n    return square(a.x - b.x) + square(a.y - b.y);\n}", ""),)),
        OpCase("insert_function", "insert_code", ("square", "geometry.c", "int cube(int v) {\n    return v * v * v;\n}", "after"),
               (("geometry.c", "    return v * v;\n}\n", "    return v * v;\n}\n\nint cube(int v) {\n    return v * v * v;\n}\n"),)),
        OpCase("rename_function", "rename_symbol", ("square", "geometry.c", "sq"),
               (("geometry.c", "static int square(", "static int sq("),
                ("geometry.c", "return square(a.x - b.x) + square(a.y - b.y)", "return sq(a.x - b.x) + sq(a.y - b.y)"))),
    ],
    "cpp": [
        OpCase("replace_out_of_line_method", "replace_symbol",
               ("Circle/area[1]", "circle.cpp", "double Circle::area() const {\n    return 3.14 * r_ * r_;\n}"),
               (("circle.cpp", "    return 3.14159 * r_ * r_;", "    return 3.14 * r_ * r_;"),)),
        OpCase("replace_inline_method", "replace_symbol",
               ("Circle/name", "circle.cpp", 'std::string name() const { return "round"; }'),
               (("circle.cpp", 'return "circle";', 'return "round";'),)),
        OpCase("remove_overload", "remove_symbol", ("Circle/scale[3]", "circle.cpp"),
               (("circle.cpp", "\n\nvoid Circle::scale(int f) {\n    r_ *= f;\n}", ""),)),
        OpCase("insert_after_overload", "insert_code",
               ("Circle/scale[2]", "circle.cpp", "void Circle::reset() {\n    r_ = 0;\n}", "before"),
               (("circle.cpp", "void Circle::scale(double f) {", "void Circle::reset() {\n    r_ = 0;\n}\n\nvoid Circle::scale(double f) {"),)),
        OpCase("rename_declaration_and_definition", "rename_symbol", ("Circle/area[1]", "circle.cpp", "surface"),
               (("circle.cpp", "    double area() const;", "    double surface() const;"),
                ("circle.cpp", "double Circle::area() const {", "double Circle::surface() const {"))),
    ],
}

# Java and Kotlin in one folder of sources, no build file: one jdtls serves both
# (tests/test_symbols_jdtls.py runs them in one test, so that jdtls starts once).
CART, BASKET = "Cart.java", "kt/Basket.kt"
JVM_CASES = [
    OpCase("java_replace_method_keeping_javadoc", "replace_symbol", ("Cart/total", CART, "public int total() {\n    return sum * 2;\n}"),
           ((CART, "        return sum;\n", "        return sum * 2;\n"),)),
    OpCase("java_insert_method", "insert_code", ("Cart/add", CART, "public void clear() {\n    sum = 0;\n}", "after"),
           ((CART, "        sum += price;\n    }\n", "        sum += price;\n    }\n\n    public void clear() {\n        sum = 0;\n    }\n"),)),
    OpCase("java_remove_annotated_method", "remove_symbol", ("Cart/toString", CART),
           ((CART, "\n\n    @Override\n    public String toString() {\n        return \"Cart \" + sum;\n    }", ""),)),
    OpCase("java_rename_method_across_files_and_into_kotlin", "rename_symbol", ("Cart/total", CART, "amount"),
           ((CART, "public int total()", "public int amount()"), ("Main.java", "cart.total()", "cart.amount()"),
            ("kt/Shop.kt", "cart.total()", "cart.amount()"))),
    OpCase("kotlin_replace_method", "replace_symbol", ("Basket/size", BASKET, "fun size(): Int {\n    return count * 1\n}"),
           ((BASKET, "        return count\n", "        return count * 1\n"),)),
    OpCase("kotlin_insert_method", "insert_code", ("Basket/put", BASKET, "fun clear() {\n    count = 0\n}", "after"),
           ((BASKET, "        count += 1\n    }\n", "        count += 1\n    }\n\n    fun clear() {\n        count = 0\n    }\n"),)),
    OpCase("kotlin_remove_annotated_method", "remove_symbol", ("Basket/items", BASKET),
           ((BASKET, '\n\n    @Deprecated("use size")\n    fun items(): Int = size()', ""),)),
]
CASES["bash"] = [
    OpCase("replace_function_keeping_comment", "replace_symbol", ("greet", "lib.sh", 'greet() {\n  echo "hi $1"\n}'),
           (("lib.sh", 'echo "hello $1"', 'echo "hi $1"'),)),
    OpCase("insert_function", "insert_code", ("shout", "lib.sh", 'whisper() {\n  echo "$1"\n}', "before"),
           (("lib.sh", "shout() {", 'whisper() {\n  echo "$1"\n}\n\nshout() {'),)),
    OpCase("remove_function_with_comment", "remove_symbol", ("greet", "lib.sh"),
           (("lib.sh", '# Says hello.\ngreet() {\n  echo "hello $1"\n}\n\n', ""),)),
    OpCase("rename_across_files", "rename_symbol", ("greet", "lib.sh", "welcome"),
           (("lib.sh", "greet() {", "welcome() {"), ("lib.sh", '  greet "$1"', '  welcome "$1"'), ("deploy.sh", "greet you", "welcome you"))),
]

RS, JAVA, KT, CS, RB = "src/lib.rs", "src/Inventory.java", "User.kt", "Order.cs", "invoice.rb"

# The tree-sitter backend (Rust, C# and Ruby have no server here; Java and Kotlin without jdtls), same name paths.
TREE_SITTER_CASES: dict[str, list[OpCase]] = {
    "rust": [
        OpCase("replace_attributed_method_keeping_attribute", "replace_symbol",
               ("Point/norm", RS, "pub fn norm(&self) -> i32 {\n    self.x.abs().max(self.y.abs())\n}"),
               ((RS, "        self.x.abs() + self.y.abs()", "        self.x.abs().max(self.y.abs())"),)),
        OpCase("replace_derived_struct_with_doc", "replace_symbol",
               ("/Point[0]", RS, "/// A point in 2D.\n#[derive(Debug)]\npub struct Point {\n    pub x: i64,\n    pub y: i64,\n}"),
               ((RS, "/// A point.\n#[derive(Debug, Clone)]\npub struct Point {\n    pub x: i32,\n    pub y: i32,\n}",
                 "/// A point in 2D.\n#[derive(Debug)]\npub struct Point {\n    pub x: i64,\n    pub y: i64,\n}"),)),
        OpCase("remove_trait_impl_method", "remove_symbol", ("Point/fmt", RS),
               ((RS, "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        write!(f, \"({}, {})\", self.x, self.y)\n    }\n", ""),)),
        OpCase("rename_in_file", "rename_symbol", ("origin", RS, "zero"), ((RS, "pub fn origin()", "pub fn zero()"),)),
    ],
    "java": [
        OpCase("replace_overload_keeping_annotation_and_javadoc", "replace_symbol",
               ("count[0]", JAVA, "public int count() {\n    return items.isEmpty() ? 0 : items.size();\n}"),
               ((JAVA, "        return items.size();", "        return items.isEmpty() ? 0 : items.size();"),)),
        OpCase("remove_annotated_method", "remove_symbol", ("Inventory/toString", JAVA),
               ((JAVA, "\n\n    @Override\n    public String toString() {\n        return \"Inventory\" + items;\n    }", ""),)),
        OpCase("insert_method", "insert_code",
               ("count[1]", JAVA, "public boolean isEmpty() {\n    return items.isEmpty();\n}", "after"),
               ((JAVA, "filter(s -> s.startsWith(prefix)).count();\n    }\n",
                 "filter(s -> s.startsWith(prefix)).count();\n    }\n\n    public boolean isEmpty() {\n        return items.isEmpty();\n    }\n"),)),
    ],
    "kotlin": [
        OpCase("replace_method", "replace_symbol", ("User/greet", KT, 'fun greet(): String {\n    return "hello $name"\n}'),
               ((KT, '        return "hi $name"', '        return "hello $name"'),)),
        OpCase("remove_annotated_method", "remove_symbol", ("User/hello", KT),
               ((KT, '\n\n    @Deprecated("use greet")\n    fun hello(): String = greet()', ""),)),
    ],
    "csharp": [
        OpCase("replace_attributed_method_keeping_doc_and_attribute", "replace_symbol",
               ("Order/Discount", CS, "public void Discount(decimal pct)\n{\n    Total -= Total * pct / 100;\n}"),
               ((CS, "            Total -= Total * pct;", "            Total -= Total * pct / 100;"),)),
        OpCase("remove_with_doc_and_attribute", "remove_symbol", ("Order/Discount", CS),
               ((CS, "        /// <summary>Discounts the order.</summary>\n        [Obsolete(\"use ApplyDiscount\")]\n"
                 "        public void Discount(decimal pct)\n        {\n            Total -= Total * pct;\n        }\n\n", ""),)),
    ],
    "ruby": [
        OpCase("replace_singleton_method_keeping_comment", "replace_symbol",
               ("Invoice/from_json", RB, "def self.from_json(text)\n  new(JSON.parse(text).fetch(\"total\"))\nend"),
               ((RB, '      new(JSON.parse(text)["total"])', '      new(JSON.parse(text).fetch("total"))'),)),
        OpCase("insert_method", "insert_code", ("Invoice/to_s", RB, "def paid?\n  total.zero?\nend", "after"),
               ((RB, '      "invoice #{total}"\n    end\n', '      "invoice #{total}"\n    end\n\n    def paid?\n      total.zero?\n    end\n'),)),
    ],
}


# The cases check the exact text; removing a symbol other code still refers to is tested apart.
FORCE = {"remove_symbol": {"force": True}}
