package io.github.loombulkhead;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Javadoc and comments state contracts; measured sizes and timings live in {@code docs/benchmarks.md}, where
 * they are refreshed, so none is quoted in the sources of the library or the starter, where it would go stale.
 */
class JavadocFiguresTest {

    /** The main sources of this module and of the starter (the build runs from each module's directory). */
    private static final List<Path> SOURCES = List.of(Path.of("src/main/java"),
            Path.of("../loom-bulkhead-spring-boot-starter/src/main/java"));

    /** A number with a unit of memory or of a per-operation time, e.g. "about 100 bytes", "1 MB", "143 ns". */
    private static final Pattern FIGURE = Pattern
        .compile("\\d[\\d,._]*\\s*(bytes?|B|KB|KiB|kB|MB|MiB|GB|GiB|ns|µs|us)\\b");

    @Test
    void noCommentQuotesAMeasuredFigure() throws IOException {
        List<String> figures = new ArrayList<>();
        for (Path sources : SOURCES) {
            assertThat(sources).isDirectory();
            try (Stream<Path> files = Files.walk(sources)) {
                for (Path file : files.filter((path) -> path.toString().endsWith(".java")).sorted().toList()) {
                    figures.addAll(figuresIn(file));
                }
            }
        }
        assertThat(figures).as("measured figures in comments; move them to docs/benchmarks.md").isEmpty();
    }

    @Test
    void aQuotedFigureIsFound() throws IOException {
        Path file = Files.createTempFile("Figures", ".java");
        try {
            Files.writeString(file, "/**\n * A waiting task costs about 100 bytes.\n */\nclass Figures {\n}\n");
            assertThat(figuresIn(file)).singleElement()
                .asString()
                .endsWith(":2: * A waiting task costs about 100 bytes.");
        }
        finally {
            Files.delete(file);
        }
    }

    private static List<String> figuresIn(Path file) throws IOException {
        List<String> figures = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            boolean comment = line.startsWith("*") || line.startsWith("/*") || line.startsWith("//");
            if (comment && FIGURE.matcher(line).find()) {
                figures.add(file.normalize() + ":" + (i + 1) + ": " + line);
            }
        }
        return figures;
    }
}
