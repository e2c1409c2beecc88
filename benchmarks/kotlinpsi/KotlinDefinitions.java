// Definitions in Kotlin sources, by the Kotlin compiler's own parser (its PSI, from
// kotlin-compiler-embeddable, resolved from Maven Central by `make setup`; see pom.xml).
// Protocol on stdin/stdout, one request after another: a line with the source's length in
// UTF-8 bytes, then the bytes; answered by one line, a JSON array of
// [name start, name end, start, end, name path, kind, header, body] (UTF-16 offsets) for every
// named class, object, interface, function, constructor, type alias and property holding a
// function, or `null` if the source has a syntax error. Header and body are the PSI's tokens,
// comments and white space left out, so layout is no change.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;
import org.jetbrains.kotlin.cli.common.CLIConfigurationKeys;
import org.jetbrains.kotlin.cli.common.messages.MessageCollector;
import org.jetbrains.kotlin.cli.jvm.compiler.EnvironmentConfigFiles;
import org.jetbrains.kotlin.cli.jvm.compiler.KotlinCoreEnvironment;
import org.jetbrains.kotlin.com.intellij.openapi.Disposable;
import org.jetbrains.kotlin.com.intellij.openapi.util.Disposer;
import org.jetbrains.kotlin.com.intellij.psi.PsiComment;
import org.jetbrains.kotlin.com.intellij.psi.PsiElement;
import org.jetbrains.kotlin.com.intellij.psi.PsiErrorElement;
import org.jetbrains.kotlin.com.intellij.psi.PsiWhiteSpace;
import org.jetbrains.kotlin.config.CompilerConfiguration;
import org.jetbrains.kotlin.psi.*;

public class KotlinDefinitions {
    public static void main(String[] args) throws Exception {
        Disposable disposable = Disposer.newDisposable();
        CompilerConfiguration configuration = new CompilerConfiguration();
        configuration.put(CLIConfigurationKeys.MESSAGE_COLLECTOR_KEY, MessageCollector.Companion.getNONE());
        KotlinCoreEnvironment environment =
                KotlinCoreEnvironment.createForProduction(disposable, configuration, EnvironmentConfigFiles.JVM_CONFIG_FILES);
        KtPsiFactory factory = new KtPsiFactory(environment.getProject(), false);
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        String header;
        while ((header = readLine(in)) != null) {
            byte[] data = in.readNBytes(Integer.parseInt(header.trim()));
            KtFile file = factory.createFile("input.kt", new String(data, StandardCharsets.UTF_8));
            out.println(hasError(file) ? "null" : definitions(file));
        }
    }

    static String readLine(DataInputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != -1 && c != '\n') line.append((char) c);
        return c == -1 && line.length() == 0 ? null : line.toString();
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

    static boolean hasError(PsiElement element) {
        if (element instanceof PsiErrorElement) return true;
        for (PsiElement child = element.getFirstChild(); child != null; child = child.getNextSibling())
            if (hasError(child)) return true;
        return false;
    }

    // The element's tokens between two offsets, comments and white space left out.
    static void tokens(PsiElement element, int from, int to, StringBuilder out) {
        if (element instanceof PsiWhiteSpace || element instanceof PsiComment) return;
        int start = element.getTextRange().getStartOffset(), end = element.getTextRange().getEndOffset();
        if (end <= from || start >= to) return;
        if (element.getFirstChild() == null) {
            out.append(element.getText()).append(' ');
            return;
        }
        for (PsiElement child = element.getFirstChild(); child != null; child = child.getNextSibling()) tokens(child, from, to, out);
    }

    static String spelled(PsiElement element, int from, int to) {
        StringBuilder out = new StringBuilder();
        tokens(element, from, to, out);
        return out.toString().trim();
    }

    // Where a declaration starts: its first part that is not its doc comment.
    static int startOf(PsiElement element) {
        for (PsiElement child = element.getFirstChild(); child != null; child = child.getNextSibling())
            if (!(child instanceof PsiWhiteSpace || child instanceof PsiComment)) return child.getTextRange().getStartOffset();
        return element.getTextRange().getStartOffset();
    }

    static String definitions(KtFile file) {
        List<String> found = new ArrayList<>();
        walk(file, "", found);
        return "[" + String.join(",", found) + "]";
    }

    static void walk(PsiElement element, String prefix, List<String> found) {
        for (PsiElement child = element.getFirstChild(); child != null; child = child.getNextSibling()) {
            String entered = entry(child, prefix, found);
            walk(child, entered == null ? prefix : prefix + entered + "/", found);
        }
    }

    // The definition's name if the element is one (added to `found`), else null.
    static String entry(PsiElement element, String prefix, List<String> found) {
        String kind;
        PsiElement body;
        if (element instanceof KtClassOrObject declaration) {
            kind = declaration instanceof KtObjectDeclaration ? "object" : declaration instanceof KtClass klass && klass.isInterface() ? "interface" : "class";
            body = declaration.getBody();
        } else if (element instanceof KtNamedFunction function) {
            kind = "function";
            body = function.getBodyExpression();
        } else if (element instanceof KtSecondaryConstructor constructor) {
            kind = "constructor";
            body = constructor.getBodyExpression();
        } else if (element instanceof KtTypeAlias alias) {
            kind = "type";
            body = alias.getTypeReference();
        } else if (element instanceof KtProperty property && (property.getInitializer() instanceof KtLambdaExpression
                || property.getInitializer() instanceof KtNamedFunction)) {
            kind = "function";
            body = property.getInitializer();
        } else {
            return null;
        }
        KtNamedDeclaration declaration = (KtNamedDeclaration) element;
        PsiElement name = declaration.getNameIdentifier();
        String text = declaration.getName();
        if (element instanceof KtSecondaryConstructor) {
            name = ((KtSecondaryConstructor) element).getConstructorKeyword();
            text = "constructor";
        }
        if (name == null || text == null) return null;
        int start = startOf(element), end = element.getTextRange().getEndOffset();
        int bodyStart = body == null ? end : body.getTextRange().getStartOffset();
        found.add("[" + name.getTextRange().getStartOffset() + "," + (name.getTextRange().getStartOffset() + text.length()) + "," + start
                + "," + end + "," + quote(prefix + text) + "," + quote(kind) + "," + quote(spelled(element, start, bodyStart)) + ","
                + quote(body == null ? "" : spelled(element, bodyStart, end)) + "]");
        return text;
    }
}
