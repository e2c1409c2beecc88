// Identifiers of one Java source resolved by javac's own attribution (the Compiler Tree API),
// the file compiled alone: names it cannot resolve (third-party types) stay unresolved, and the
// errors they cause count the same before and after a change. Usage: java JavaReferences < source.
// Prints one line: {"errors": n, "names": [[offset, key], ...]} (UTF-16 offsets; the key is a
// local's declaration position, or a member's or type's qualified name and signature; a
// constructor's name is keyed by its class), or null when the source does not parse.
import com.sun.source.tree.*;
import com.sun.source.util.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;
import javax.lang.model.element.*;
import javax.tools.*;

public class JavaReferences {
    static final Set<ElementKind> LOCAL = EnumSet.of(ElementKind.LOCAL_VARIABLE, ElementKind.PARAMETER, ElementKind.EXCEPTION_PARAMETER,
            ElementKind.RESOURCE_VARIABLE, ElementKind.BINDING_VARIABLE, ElementKind.TYPE_PARAMETER);

    public static void main(String[] args) throws Exception {
        String source = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        JavaFileObject file = new SimpleJavaFileObject(java.net.URI.create("string:///Input.java"), JavaFileObject.Kind.SOURCE) {
            public CharSequence getCharContent(boolean ignore) { return source; }
        };
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        JavacTask task = (JavacTask) compiler.getTask(null, null, diagnostics, List.of("-proc:none", "-Xmaxerrs", "100000"), null, List.of(file));
        List<CompilationUnitTree> units = new ArrayList<>();
        task.parse().forEach(units::add);
        for (Diagnostic<?> d : diagnostics.getDiagnostics()) if (d.getKind() == Diagnostic.Kind.ERROR) { out.println("null"); return; }
        try { task.analyze(); } catch (Throwable ignored) { }
        int errors = 0;
        for (Diagnostic<?> d : diagnostics.getDiagnostics()) if (d.getKind() == Diagnostic.Kind.ERROR) errors++;
        Trees trees = Trees.instance(task);
        SourcePositions positions = trees.getSourcePositions();
        List<String> names = new ArrayList<>();
        for (CompilationUnitTree unit : units) {
            new TreePathScanner<Void, Void>() {
                // Locals by where they are declared; members and types by their qualified names, so
                // that a class of the JDK compiled here and the JDK's own copy of it are one.
                String key(Element element) {
                    if (element == null) return null;
                    if (element.getKind() == ElementKind.CONSTRUCTOR) element = element.getEnclosingElement();
                    if (LOCAL.contains(element.getKind())) {
                        TreePath declared = trees.getPath(element);
                        return declared != null && declared.getCompilationUnit() == unit
                                ? "at" + positions.getStartPosition(unit, declared.getLeaf()) : null;
                    }
                    Element owner = element.getEnclosingElement();
                    return (owner == null ? "" : owner + "#") + element;
                }
                void add(int offset, Element element) {
                    String key = key(element);
                    if (offset >= 0 && key != null) names.add("[" + offset + "," + quote(key) + "]");
                }
                // Where a declaration's name is: the first time it is spelled after the modifiers.
                int nameAt(Tree node, ModifiersTree modifiers, String name) {
                    long from = Math.max(positions.getStartPosition(unit, node), positions.getEndPosition(unit, modifiers));
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?<![\\w$])" + java.util.regex.Pattern.quote(name) + "(?![\\w$])")
                            .matcher(source);
                    return from >= 0 && m.find((int) from) && m.start() < positions.getEndPosition(unit, node) ? m.start() : -1;
                }
                public Void visitIdentifier(IdentifierTree node, Void v) {
                    // `this` and `super` are keywords (javac adds a `super()` of its own to a constructor)
                    if (!node.getName().contentEquals("this") && !node.getName().contentEquals("super"))
                        add((int) positions.getStartPosition(unit, node), trees.getElement(getCurrentPath()));
                    return super.visitIdentifier(node, v);
                }
                public Void visitMemberSelect(MemberSelectTree node, Void v) {
                    long end = positions.getEndPosition(unit, node);
                    add((int) (end - node.getIdentifier().length()), trees.getElement(getCurrentPath()));
                    return super.visitMemberSelect(node, v);
                }
                public Void visitMemberReference(MemberReferenceTree node, Void v) {
                    long end = positions.getEndPosition(unit, node);
                    if (!node.getName().contentEquals("new")) add((int) (end - node.getName().length()), trees.getElement(getCurrentPath()));
                    return super.visitMemberReference(node, v);
                }
                public Void visitClass(ClassTree node, Void v) {
                    String name = node.getSimpleName().toString();
                    if (!name.isEmpty()) add(nameAt(node, node.getModifiers(), name), trees.getElement(getCurrentPath()));
                    return super.visitClass(node, v);
                }
                public Void visitMethod(MethodTree node, Void v) {
                    Element element = trees.getElement(getCurrentPath());
                    String name = node.getName().contentEquals("<init>") && element != null
                            ? element.getEnclosingElement().getSimpleName().toString() : node.getName().toString();
                    add(nameAt(node, node.getModifiers(), name), element);
                    return super.visitMethod(node, v);
                }
                public Void visitVariable(VariableTree node, Void v) {
                    add(nameAt(node, node.getModifiers(), node.getName().toString()), trees.getElement(getCurrentPath()));
                    return super.visitVariable(node, v);
                }
            }.scan(unit, null);
        }
        out.println("{\"errors\":" + errors + ",\"names\":[" + String.join(",", names) + "]}");
    }

    static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.append('"').toString();
    }
}
