// Definitions in Java sources, by javac's own parser (the Compiler Tree API).
// Protocol on stdin/stdout, one request after another: a line with the source's length in
// UTF-8 bytes, then the bytes; answered by one line, a JSON array of
// [name start, name end, start, end] character offsets for every named class, interface,
// enum, record, method and constructor, or `null` if the source does not parse.
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
            Deque<String> classes = new ArrayDeque<>();
            new TreeScanner<Void, Void>() {
                void add(Tree node, ModifiersTree modifiers, String name) {
                    long start = positions.getStartPosition(unit, node), end = positions.getEndPosition(unit, node);
                    long from = Math.max(start, positions.getEndPosition(unit, modifiers));
                    Matcher m = Pattern.compile("(?<![\\w$])" + Pattern.quote(name) + "(?![\\w$])").matcher(source);
                    if (start >= 0 && m.find((int) from) && m.start() < end)
                        found.add("[" + m.start() + "," + m.end() + "," + start + "," + end + "]");
                }
                public Void visitClass(ClassTree node, Void v) {
                    String name = node.getSimpleName().toString();
                    if (!name.isEmpty()) add(node, node.getModifiers(), name);
                    classes.push(name);
                    super.visitClass(node, v);
                    classes.pop();
                    return null;
                }
                public Void visitMethod(MethodTree node, Void v) {
                    String name = node.getName().toString();
                    if (name.equals("<init>")) name = classes.isEmpty() ? name : classes.peek();
                    if (!name.isEmpty() && !name.startsWith("<")) add(node, node.getModifiers(), name);
                    return super.visitMethod(node, v);
                }
            }.scan(unit, null);
        }
        return "[" + String.join(",", found) + "]";
    }
}
