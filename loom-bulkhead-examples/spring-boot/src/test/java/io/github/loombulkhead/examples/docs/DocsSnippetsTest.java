package io.github.loombulkhead.examples.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the code of README.md and docs/*.md compiling: every Java block is the text of tagged regions of source
 * files in loom-bulkhead-examples, which the build compiles and whose tests run them. A block names its sources
 * in the line above it, {@code <!-- snippet: path#tag -->} (several separated by {@code ", "}, shown one after the
 * other with a blank line between), and a source marks a region with {@code tag::name[]} and {@code end::name[]}
 * comment lines. A renamed method then breaks the build in the example, and this test until the page shows
 * the new code. To copy changed sources into the pages, run this test with {@code -Dsnippets.update=true}.
 */
class DocsSnippetsTest {

    private static final Path EXAMPLES = Markdown.ROOT.resolve("loom-bulkhead-examples");

    /** A line that is only a comment marking a region: {@code // tag::x[]}, {@code # end::x[]}, ... */
    private static final Pattern TAG = Pattern.compile("^\\s*(?://|#|<!--)\\s*(tag|end)::([\\w-]+)\\[\\]\\s*(?:-->)?\\s*$");

    @Test
    void everyJavaBlockNamesItsSource() {
        List<String> unnamed = Markdown.blocks()
            .stream()
            .filter((block) -> block.language().equals("java") && !"snippet".equals(block.kind()))
            .map(Markdown.Block::where)
            .toList();
        assertThat(unnamed).as("Java blocks without a <!-- snippet: path#tag --> line above them").isEmpty();
    }

    @Test
    void everyBlockShowsItsSourceExactly() throws IOException {
        List<String> differences = new ArrayList<>();
        for (Path page : Markdown.pages()) {
            List<Markdown.Block> changed = new ArrayList<>();
            for (Markdown.Block block : Markdown.blocks(page)) {
                if ("snippet".equals(block.kind()) && !block.text().equals(source(block.value()))) {
                    differences.add(block.where() + " differs from " + block.value() + "; the source has:\n"
                            + source(block.value()) + "\n");
                    changed.add(block);
                }
            }
            if (Boolean.getBoolean("snippets.update") && !changed.isEmpty()) {
                update(page, changed);
            }
        }
        assertThat(differences).as("blocks that differ from their sources (update them, e.g. with "
                + "-Dsnippets.update=true)").isEmpty();
    }

    @Test
    void everyTaggedRegionIsShownOnAPage() throws IOException {
        Set<String> shown = new HashSet<>();
        for (Markdown.Block block : Markdown.blocks()) {
            if ("snippet".equals(block.kind())) {
                for (String reference : block.value().split(", ")) {
                    shown.add(reference);
                }
            }
        }
        List<String> unshown = new ArrayList<>();
        try (Stream<Path> files = Files.walk(EXAMPLES)) {
            for (Path file : files.filter((path) -> path.toString().contains("/src/") && Files.isRegularFile(path))
                .sorted()
                .toList()) {
                for (String line : Files.readAllLines(file)) {
                    Matcher tag = TAG.matcher(line);
                    if (tag.matches() && tag.group(1).equals("tag")) {
                        String reference = Markdown.ROOT.relativize(file) + "#" + tag.group(2);
                        if (!shown.contains(reference)) {
                            unshown.add(reference);
                        }
                    }
                }
            }
        }
        assertThat(unshown).as("tagged regions that no page shows").isEmpty();
    }

    /** The text of the regions named by {@code references} ({@code path#tag, path#tag}). */
    static String source(String references) {
        List<String> regions = new ArrayList<>();
        for (String reference : references.split(", ")) {
            int hash = reference.indexOf('#');
            assertThat(hash).as("reference %s names path#tag", reference).isPositive();
            regions.add(region(Markdown.ROOT.resolve(reference.substring(0, hash)), reference.substring(hash + 1)));
        }
        return String.join("\n\n", regions);
    }

    private static String region(Path file, String tag) {
        assertThat(file).as("source of a snippet").isRegularFile();
        List<String> lines = Markdown.read(file);
        int start = indexOf(lines, "tag", tag, 0);
        int end = indexOf(lines, "end", tag, start + 1);
        assertThat(start).as("tag::%s[] in %s", tag, file).isNotNegative();
        assertThat(end).as("end::%s[] in %s", tag, file).isNotNegative();
        List<String> region = lines.subList(start + 1, end)
            .stream()
            .filter((line) -> !TAG.matcher(line).matches())
            .map(String::stripTrailing)
            .toList();
        int indent = region.stream()
            .filter((line) -> !line.isBlank())
            .mapToInt((line) -> line.length() - line.stripLeading().length())
            .min()
            .orElse(0);
        return String.join("\n", region.stream().map((line) -> line.isBlank() ? "" : line.substring(indent)).toList());
    }

    private static int indexOf(List<String> lines, String kind, String tag, int from) {
        for (int i = Math.max(from, 0); i < lines.size(); i++) {
            Matcher marker = TAG.matcher(lines.get(i));
            if (marker.matches() && marker.group(1).equals(kind) && marker.group(2).equals(tag)) {
                return i;
            }
        }
        return -1;
    }

    /** Replaces the text of {@code changed} blocks of {@code page} with their sources. */
    private static void update(Path page, List<Markdown.Block> changed) throws IOException {
        List<String> lines = new ArrayList<>(Markdown.read(page));
        for (Markdown.Block block : changed.stream()
            .sorted(Comparator.comparingInt(Markdown.Block::openLine).reversed())
            .toList()) {
            List<String> replacement = source(block.value()).lines()
                .map((line) -> line.isEmpty() ? "" : block.indent() + line)
                .toList();
            lines.subList(block.openLine(), block.closeLine() - 1).clear();
            lines.addAll(block.openLine(), replacement);
        }
        Files.write(page, lines);
    }
}
