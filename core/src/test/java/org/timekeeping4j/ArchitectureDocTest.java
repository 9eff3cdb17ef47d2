package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/ARCHITECTURE.md stays true to the code: it names every main class of core, its table cells stay short, and
 * its API table lists every exported public type (ExportedApiTest's allow-list) and every public method of them.
 * Each check prints exactly what is missing or too long.
 *
 * <p>A name counts where it stands in backticks: {@code `ClassName`}, {@code `package.ClassName`}, or followed by a
 * member ({@code `ClassName.method()`}). The document is found from the compiled classes, walking up to the
 * directory that holds docs/ARCHITECTURE.md.
 */
class ArchitectureDocTest {

    private static final String DOC = "docs/ARCHITECTURE.md";
    private static final String API_HEADING = "## The public API";
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`\n]+)`");
    /** An identifier that looks like a type: capitalised, with a lower-case letter (constants are all capitals). */
    private static final Pattern TYPE_LIKE = Pattern.compile("(?<![\\w$])[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(?![\\w$])");
    private static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Z]\\w*)");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][\\w$]*");
    /** Where a JDK type named in the document may live. */
    private static final List<String> JDK_PACKAGES = List.of("java.lang.", "java.lang.invoke.", "java.lang.foreign.",
            "java.time.", "java.util.", "java.util.concurrent.", "java.nio.file.", "java.io.", "java.math.");
    /** Abbreviations whose dot ends no sentence. */
    private static final Pattern ABBREVIATIONS = Pattern.compile("(?i)\\b(?:e\\.g\\.|i\\.e\\.|etc\\.|vs\\.|cf\\.)");
    private static final Pattern SENTENCE_END = Pattern.compile("[.!?](?=\\s|$)");

    private static Path repo;
    private static List<String> lines;
    /** The document without its fenced blocks, one entry per line (fenced lines blank, so numbers hold). */
    private static List<String> prose;

    @BeforeAll
    static void readDocument() throws IOException, URISyntaxException {
        Path classes = Path.of(Clocks.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path p = classes;
        while (p != null && !Files.isRegularFile(p.resolve(DOC))) {
            p = p.getParent();
        }
        assertThat(p).as("no %s in any directory above %s", DOC, classes).isNotNull();
        repo = p;
        lines = Files.readAllLines(repo.resolve(DOC));
        prose = new ArrayList<>();
        boolean fenced = false;
        for (String line : lines) {
            if (line.startsWith("```")) {
                fenced = !fenced;
                prose.add("");
            } else {
                prose.add(fenced ? "" : line);
            }
        }
    }

    /** Every code span outside fenced blocks. */
    private static List<String> spans() {
        List<String> out = new ArrayList<>();
        for (String line : prose) {
            Matcher m = CODE_SPAN.matcher(line);
            while (m.find()) {
                out.add(m.group(1).strip());
            }
        }
        return out;
    }

    /** The top-level main classes of core: one per .java file under core/src/main/java, package-info aside. */
    private static Set<String> mainClasses() throws IOException {
        Path main = repo.resolve("core/src/main/java");
        try (Stream<Path> files = Files.walk(main)) {
            Set<String> out = new TreeSet<>();
            files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".java") && !n.equals("package-info.java") && !n.equals("module-info.java"))
                    .forEach(n -> out.add(n.substring(0, n.length() - ".java".length())));
            return out;
        }
    }

    @Test
    void shouldNameEveryMainClassOfCore() throws IOException {
        Set<String> classes = mainClasses();
        assertThat(classes).as("core's main classes, from %s", repo.resolve("core/src/main/java")).isNotEmpty();
        List<String> spans = spans();
        List<String> missing = new ArrayList<>();
        for (String name : classes) {
            Pattern named = Pattern.compile("(?<![\\w$.])(?:[a-z][a-z0-9_]*\\.)*" + Pattern.quote(name) + "(?![\\w$])");
            if (spans.stream().noneMatch(s -> named.matcher(s).find())) {
                missing.add(name);
            }
        }
        assertThat(missing).as("main classes of core that %s never names in backticks (`%s` or `package.%s`)",
                DOC, "ClassName", "ClassName").isEmpty();
    }

    @Test
    void shouldNameNoTypeThatDoesNotExist() throws IOException {
        Set<String> known = new HashSet<>();
        try (Stream<Path> files = Files.walk(repo)) {
            files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !f.toString().contains("/target/") && !f.toString().contains("/.git/"))
                    .forEach(f -> {
                        String n = f.getFileName().toString();
                        known.add(n.substring(0, n.length() - ".java".length()));
                        try {
                            Matcher m = DECLARED.matcher(Files.readString(f));
                            while (m.find()) {
                                known.add(m.group(1));
                            }
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        }
        Set<String> unknown = new TreeSet<>();
        for (String span : spans()) {
            Matcher m = TYPE_LIKE.matcher(span);
            while (m.find()) {
                String name = m.group();
                if (!known.contains(name) && !isJdkType(name)) {
                    unknown.add("`" + span + "`: " + name);
                }
            }
        }
        assertThat(unknown).as("type names in backticks in %s that no source of this repository nor the JDK declares",
                DOC).isEmpty();
    }

    private static boolean isJdkType(String name) {
        for (String pkg : JDK_PACKAGES) {
            try {
                Class.forName(pkg + name, false, ClassLoader.getPlatformClassLoader());
                return true;
            } catch (ClassNotFoundException e) {
                // try the next package
            }
        }
        return false;
    }

    /**
     * The cells of a table row. Inside code spans dots and bars are replaced first (by a middle dot and a broken
     * bar), so that they end no sentence and split no cell, and the cell still reads as written.
     */
    private static List<String> cells(String row) {
        String text = CODE_SPAN.matcher(row)
                .replaceAll(m -> Matcher.quoteReplacement(
                        "`" + m.group(1).replace('.', '\u00b7').replace('|', '\u00a6') + "`"))
                .strip();
        if (text.startsWith("|")) {
            text = text.substring(1);
        }
        if (text.endsWith("|")) {
            text = text.substring(0, text.length() - 1);
        }
        return Arrays.stream(text.split("\\|", -1)).map(String::strip).toList();
    }

    private static boolean isTableRow(String line) {
        return line.strip().startsWith("|");
    }

    private static boolean isSeparator(String line) {
        return line.strip().matches("\\|?[\\s:|-]+\\|?") && line.contains("-");
    }

    /** Sentences in a cell: each ". " (or "!", "?") ends one, and text after the last end is one more. */
    static int sentences(String cell) {
        String text = ABBREVIATIONS.matcher(cell).replaceAll("abbr").replace("...", "").strip();
        if (text.isEmpty()) {
            return 0;
        }
        Matcher m = SENTENCE_END.matcher(text);
        int ends = 0;
        int last = 0;
        while (m.find()) {
            ends++;
            last = m.end();
        }
        return ends + (text.substring(last).strip().chars().anyMatch(Character::isLetterOrDigit) ? 1 : 0);
    }

    @Test
    void sentencesShouldBeCountedAsAReaderCountsThem() {
        assertThat(sentences("One. Two.")).isEqualTo(2);
        assertThat(sentences("One; still one, e.g. this: `Clocks\u00b7nanos()`.")).isEqualTo(1);
        assertThat(sentences("One. Two. Three")).isEqualTo(3);
        assertThat(sentences("Linux 6.17+ and x86-vdso-read.S, i.e. one")).isEqualTo(1);
    }

    @Test
    void everyTableCellShouldHoldAtMostTwoSentences() {
        List<String> tooLong = new ArrayList<>();
        for (int i = 0; i < prose.size(); i++) {
            String line = prose.get(i);
            if (!isTableRow(line) || isSeparator(line)) {
                continue;
            }
            for (String cell : cells(line)) {
                int n = sentences(cell);
                if (n > 2) {
                    tooLong.add("line " + (i + 1) + ", " + n + " sentences: " + cell);
                }
            }
        }
        assertThat(tooLong).as("table cells of %s with more than two sentences", DOC).isEmpty();
    }

    /** The rows of the tables under {@value #API_HEADING}, up to the next section. */
    private static List<String> apiRows() {
        int start = prose.indexOf(API_HEADING);
        assertThat(start).as("%s has no section \"%s\"", DOC, API_HEADING).isNotNegative();
        List<String> rows = new ArrayList<>();
        for (int i = start + 1; i < prose.size() && !prose.get(i).startsWith("## "); i++) {
            String line = prose.get(i);
            if (isTableRow(line) && !isSeparator(line)) {
                rows.add(line);
            }
        }
        return rows;
    }

    /** The code spans of a row's first cell. */
    private static List<String> firstCellSpans(String row) {
        String text = row.strip();
        if (text.startsWith("|")) {
            text = text.substring(1);
        }
        // The first cell ends at the first bar outside a code span.
        boolean code = false;
        int end = text.length();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '`') {
                code = !code;
            } else if (c == '|' && !code) {
                end = i;
                break;
            }
        }
        List<String> out = new ArrayList<>();
        Matcher m = CODE_SPAN.matcher(text.substring(0, end));
        while (m.find()) {
            out.add(m.group(1).strip());
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Set<String>> exportedTypes() throws ReflectiveOperationException {
        Field f = ExportedApiTest.class.getDeclaredField("PUBLIC_TYPES");
        f.setAccessible(true);
        return (Map<String, Set<String>>) f.get(null);
    }

    @Test
    void apiTableShouldListEveryExportedTypeAndItsPublicMethods() throws ReflectiveOperationException {
        Map<String, Set<String>> exported = exportedTypes();
        // Longest first, so that Diagnostics.VdsoData.frequencyHz() is read as VdsoData's, not Diagnostics'.
        List<String> types = exported.values().stream().flatMap(Set::stream)
                .sorted(Comparator.comparingInt(String::length).reversed()).toList();
        Set<String> typeRows = new HashSet<>();
        Set<String> members = new HashSet<>();
        for (String row : apiRows()) {
            String current = null;
            for (String span : firstCellSpans(row)) {
                String owner = null;
                for (String t : types) {
                    if (span.equals(t)) {
                        typeRows.add(t);
                        current = t;
                        owner = t;
                        break;
                    }
                    if (span.startsWith(t + ".")) {
                        owner = t;
                        current = t;
                        Matcher m = IDENTIFIER.matcher(span.substring(t.length() + 1));
                        if (m.lookingAt()) {
                            members.add(t + "." + m.group());
                        }
                        break;
                    }
                }
                if (owner == null && current != null && !span.isEmpty() && Character.isLowerCase(span.charAt(0))) {
                    Matcher m = IDENTIFIER.matcher(span);
                    if (m.lookingAt()) {
                        members.add(current + "." + m.group()); // `T.a()`, `b()`: b is T's
                    }
                }
            }
        }
        Set<String> missingTypes = new TreeSet<>();
        Set<String> missingMethods = new TreeSet<>();
        for (Map.Entry<String, Set<String>> e : exported.entrySet()) {
            for (String t : e.getValue()) {
                if (!typeRows.contains(t)) {
                    missingTypes.add(e.getKey() + "." + t);
                }
                Class<?> c = Class.forName(e.getKey() + "." + t.replace('.', '$'), false,
                        ArchitectureDocTest.class.getClassLoader());
                for (String method : publicMethods(c)) {
                    if (!members.contains(t + "." + method)) {
                        missingMethods.add(t + "." + method);
                    }
                }
            }
        }
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(missingTypes).as("exported public types (ExportedApiTest.PUBLIC_TYPES) without a row of"
                    + " their own (`Type` in the first cell) in %s, \"%s\"", DOC, API_HEADING).isEmpty();
            soft.assertThat(missingMethods).as("public methods missing from the first cells of %s, \"%s\" (as"
                    + " `Type.method()`, or `method()` after a `Type.other()` in the same cell)", DOC, API_HEADING)
                    .isEmpty();
        });
    }

    /** A type's own public methods, less what every enum and record has and its record's accessors. */
    private static Set<String> publicMethods(Class<?> c) {
        Set<String> skip = new HashSet<>(Set.of("toString", "hashCode", "equals"));
        if (c.isEnum()) {
            skip.addAll(Set.of("values", "valueOf"));
        }
        if (c.isRecord()) {
            for (RecordComponent rc : c.getRecordComponents()) {
                skip.add(rc.getName());
            }
        }
        Set<String> out = new TreeSet<>();
        for (Method m : c.getDeclaredMethods()) {
            boolean own = Modifier.isPublic(m.getModifiers()) && !m.isSynthetic() && !m.isBridge();
            if (own && !skip.contains(m.getName())) {
                out.add(m.getName());
            }
        }
        return out;
    }
}
