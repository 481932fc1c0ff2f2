package io.github.loombulkhead.examples.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The fenced code blocks of the project's pages (README.md and docs/*.md), each with the HTML comment right
 * above it, if any: {@code <!-- snippet: path#tag -->} or {@code <!-- dependencies: path/pom.xml -->}.
 */
final class Markdown {

    /** The project root, seen from this module. */
    static final Path ROOT = Path.of("../..");

    private static final Pattern FENCE = Pattern.compile("^( *)```(\\S*)\\s*$");

    private static final Pattern COMMENT = Pattern.compile("^\\s*<!-- (\\w+): (.+?) -->\\s*$");

    private Markdown() {
    }

    /** Every page: README.md, then docs/*.md by name. */
    static List<Path> pages() {
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
            docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
            return pages;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Every fenced block of every page. */
    static List<Block> blocks() {
        List<Block> blocks = new ArrayList<>();
        for (Path page : pages()) {
            blocks.addAll(blocks(page));
        }
        return blocks;
    }

    static List<Block> blocks(Path page) {
        List<String> lines = read(page);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            String indent = open.group(1);
            int end = i + 1;
            while (end < lines.size() && !lines.get(end).equals(indent + "```")) {
                end++;
            }
            List<String> content = new ArrayList<>();
            for (String line : lines.subList(i + 1, Math.min(end, lines.size()))) {
                content.add(line.startsWith(indent) ? line.substring(indent.length()) : line.strip());
            }
            Matcher comment = (i > 0) ? COMMENT.matcher(lines.get(i - 1)) : null;
            boolean commented = comment != null && comment.matches();
            blocks.add(new Block(page, i + 1, end + 1, open.group(2), indent, List.copyOf(content),
                    commented ? comment.group(1) : null, commented ? comment.group(2) : null));
            i = end;
        }
        return blocks;
    }

    static List<String> read(Path path) {
        try {
            return Files.readAllLines(path);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * One fenced block: the lines of its fences (1-based), its language, its text without the fence's
     * indentation, and the kind and value of the comment above it.
     */
    record Block(Path page, int openLine, int closeLine, String language, String indent, List<String> lines,
            String kind, String value) {

        String text() {
            return String.join("\n", this.lines);
        }

        String where() {
            return ROOT.relativize(this.page) + ":" + this.openLine;
        }

        @Override
        public String toString() {
            return where();
        }
    }
}
