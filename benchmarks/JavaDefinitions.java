// Definitions in Java sources, by javac's own parser (the Compiler Tree API).
// Protocol on stdin/stdout, one request after another: a line with the source's length in
// UTF-8 bytes, then the bytes; answered by one line, a JSON array of
// [name start, name end, start, end, name path, kind, header, body] for every named class,
// interface, enum, record, method, constructor and lambda field, or `null` if it does not parse.
import com.sun.source.tree.*;
import com.sun.source.util.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.regex.*;
import javax.tools.*;

public class JavaDefinitions {
    public static void main(String[] args) throws Exception {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        String header;
        while ((header = readLine(in)) != null) {
            byte[] data = in.readNBytes(Integer.parseInt(header.trim()));
            out.println(definitions(compiler, new String(data, StandardCharsets.UTF_8)));
        }
    }

    static List<String> reversed(Deque<String> stack) {
        List<String> parts = new ArrayList<>(stack);
        Collections.reverse(parts);
        return parts;
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

    static String readLine(DataInputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != -1 && c != '\n') line.append((char) c);
        return c == -1 && line.length() == 0 ? null : line.toString();
    }

    static String definitions(JavaCompiler compiler, String source) throws IOException {
        JavaFileObject file = new SimpleJavaFileObject(java.net.URI.create("string:///Input.java"), JavaFileObject.Kind.SOURCE) {
            public CharSequence getCharContent(boolean ignore) { return source; }
        };
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavacTask task = (JavacTask) compiler.getTask(null, null, diagnostics, List.of("-proc:none"), null, List.of(file));
        Iterable<? extends CompilationUnitTree> units = task.parse();
        for (Diagnostic<?> d : diagnostics.getDiagnostics()) if (d.getKind() == Diagnostic.Kind.ERROR) return "null";
        SourcePositions positions = Trees.instance(task).getSourcePositions();
        List<String> found = new ArrayList<>();
        for (CompilationUnitTree unit : units) {
            Deque<String> path = new ArrayDeque<>();
            Deque<Boolean> inClass = new ArrayDeque<>();
            new TreeScanner<Void, Void>() {
                void add(Tree node, ModifiersTree modifiers, String name, String kind, String header, String body) {
                    long start = positions.getStartPosition(unit, node), end = positions.getEndPosition(unit, node);
                    long from = Math.max(start, positions.getEndPosition(unit, modifiers));
                    Matcher m = Pattern.compile("(?<![\\w$])" + Pattern.quote(name) + "(?![\\w$])").matcher(source);
                    String prefix = path.isEmpty() ? "" : String.join("/", reversed(path)) + "/";
                    if (start >= 0 && m.find((int) from) && m.start() < end)
                        found.add("[" + m.start() + "," + m.end() + "," + start + "," + end + "," + quote(prefix + name) + ","
                                + quote(kind) + "," + quote(header) + "," + quote(body) + "]");
                }
                public Void visitClass(ClassTree node, Void v) {
                    String name = node.getSimpleName().toString();
                    if (!name.isEmpty()) {
                        String header = node.getKind() + " " + node.getModifiers() + name + " " + node.getTypeParameters()
                                + " extends " + node.getExtendsClause() + " implements " + node.getImplementsClause();
                        add(node, node.getModifiers(), name, "class", header, String.valueOf(node.getMembers()));
                    }
                    path.push(name.isEmpty() ? "<anonymous>" : name);
                    inClass.push(true);
                    super.visitClass(node, v);
                    inClass.pop();
                    path.pop();
                    return null;
                }
                public Void visitMethod(MethodTree node, Void v) {
                    String name = node.getName().toString();
                    if (name.equals("<init>")) name = path.isEmpty() ? name : path.peek();
                    if (!name.isEmpty() && !name.startsWith("<")) {
                        String header = node.getModifiers() + " " + node.getTypeParameters() + " " + node.getReturnType() + " "
                                + name + "(" + node.getParameters() + ") throws " + node.getThrows() + " default " + node.getDefaultValue();
                        add(node, node.getModifiers(), name, "method", header, String.valueOf(node.getBody()));
                    }
                    path.push(name);
                    inClass.push(false);
                    super.visitMethod(node, v);
                    inClass.pop();
                    path.pop();
                    return null;
                }
                public Void visitVariable(VariableTree node, Void v) {
                    // A field holding a lambda counts as a method.
                    if (node.getInitializer() instanceof LambdaExpressionTree lambda && !inClass.isEmpty() && inClass.peek()) {
                        String name = node.getName().toString();
                        String header = node.getModifiers() + " " + node.getType() + " " + name + " " + lambda.getParameters();
                        add(node, node.getModifiers(), name, "method", header, String.valueOf(lambda.getBody()));
                    }
                    return super.visitVariable(node, v);
                }
            }.scan(unit, null);
        }
        return "[" + String.join(",", found) + "]";
    }
}
