package io.github.loombulkhead.sample.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** Writes {@code report.json}, {@code report.md} and {@code report.html} into a directory. */
public final class ReportWriter {

    private final JsonMapper json = JsonMapper.builder()
        .disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
        .enable(SerializationFeature.INDENT_OUTPUT)
        .build();

    /** Writes the three files, creating the directory if needed, and returns where they are. */
    public Written write(Report report, Path directory) {
        try {
            Files.createDirectories(directory);
            String text = this.json.writeValueAsString(report);
            Written written = new Written(directory.resolve("report.json"), directory.resolve("report.md"),
                    directory.resolve("report.html"));
            Files.writeString(written.json(), text + "\n", StandardCharsets.UTF_8);
            Files.writeString(written.markdown(), MarkdownReport.render(report), StandardCharsets.UTF_8);
            Files.writeString(written.html(), HtmlReport.render(report, text), StandardCharsets.UTF_8);
            return written;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not write the report to " + directory.toAbsolutePath(), ex);
        }
    }

    /** Reads a report.json back. */
    public Report read(Path file) {
        return this.json.readValue(file.toFile(), Report.class);
    }

    /**
     * The files written.
     *
     * @param json report.json
     * @param markdown report.md
     * @param html report.html
     */
    public record Written(Path json, Path markdown, Path html) {
    }
}
