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
 * they are refreshed, so none is quoted in the sources where it would go stale.
 */
class JavadocFiguresTest {

    private static final Path SOURCES = Path.of("src/main/java");

    /** A number with a unit of memory or of a per-operation time, e.g. "about 100 bytes", "1 MB", "143 ns". */
    private static final Pattern FIGURE = Pattern
        .compile("\\d[\\d,._]*\\s*(bytes?|B|KB|KiB|kB|MB|MiB|GB|GiB|ns|µs|us)\\b");

    /** Sources being rewritten elsewhere, whose figures go with that rewrite. */

    @Test
    void noCommentQuotesAMeasuredFigure() throws IOException {
        List<String> figures = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter((path) -> path.toString().endsWith(".java")).sorted().toList()) {
                String relative = SOURCES.relativize(file).toString().replace('\\', '/');
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i).strip();
                    boolean comment = line.startsWith("*") || line.startsWith("/*") || line.startsWith("//");
                    if (comment && FIGURE.matcher(line).find()) {
                        figures.add(relative + ":" + (i + 1) + ": " + line);
                    }
                }
            }
        }
        assertThat(SOURCES.resolve("io/github/loombulkhead/BulkheadConfig.java")).exists();
        assertThat(figures).as("measured figures in comments; move them to docs/benchmarks.md").isEmpty();
    }
}
