package io.github.loombulkhead.benchmarks.report;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** {@link MarkdownReport#writeInto} replaces only the generated section and never a hand-written part of a page. */
class MarkdownReportWriteIntoTest {

    private static final String BEGIN = MarkdownReport.BEGIN;

    private static final String END = MarkdownReport.END;

    @Test
    void replacesTheSectionBetweenTheMarkersAndKeepsTheTextAround(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("benchmarks.md");
        Files.writeString(page, "# B\nintro\n" + BEGIN + "\nold tables\n" + END + "\n## Analysis\nkeep me\n");
        MarkdownReport.writeInto(page, "new tables");
        assertThat(Files.readString(page))
            .isEqualTo("# B\nintro\n" + BEGIN + "\n\nnew tables\n\n" + END + "\n## Analysis\nkeep me\n");
    }

    @Test
    void appendsASectionToAPageWithoutMarkersAndReplacesItNextTime(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("benchmarks.md");
        Files.writeString(page, "# B\nhand-written\n");
        MarkdownReport.writeInto(page, "run 1");
        MarkdownReport.writeInto(page, "run 2");
        assertThat(Files.readString(page)).isEqualTo("# B\nhand-written\n\n" + BEGIN + "\n\nrun 2\n\n" + END + "\n");
    }

    @Test
    void createsAMissingPage(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("new.md");
        MarkdownReport.writeInto(page, "tables");
        assertThat(Files.readString(page)).contains(BEGIN + "\n\ntables\n\n" + END);
    }

    @Test
    void refusesAPageWhoseEndMarkerIsMissingAndLeavesItAsItIs(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("benchmarks.md");
        String text = "# B\n" + BEGIN + "\nold tables\n\n## Hand-written analysis\nkeep me\n";
        Files.writeString(page, text);
        assertThatIllegalStateException().isThrownBy(() -> MarkdownReport.writeInto(page, "run 1"))
            .withMessageContaining(page.toString())
            .withMessageContaining("1 begin and 0 end marker(s)");
        assertThat(Files.readString(page)).isEqualTo(text);
    }

    @Test
    void refusesAPageWithoutBeginMarker(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("benchmarks.md");
        Files.writeString(page, "# B\nkeep me\n" + END + "\n");
        assertThatIllegalStateException().isThrownBy(() -> MarkdownReport.writeInto(page, "run 1"))
            .withMessageContaining("0 begin and 1 end marker(s)");
    }

    @Test
    void refusesDuplicatedMarkers(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("benchmarks.md");
        Files.writeString(page, BEGIN + "\na\n" + END + "\nkeep me\n" + BEGIN + "\nb\n" + END + "\n");
        assertThatIllegalStateException().isThrownBy(() -> MarkdownReport.writeInto(page, "run"))
            .withMessageContaining("2 begin and 2 end marker(s)");
    }

    @Test
    void refusesAnEndMarkerBeforeTheBeginMarker(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("benchmarks.md");
        Files.writeString(page, END + "\nkeep me\n" + BEGIN + "\n");
        assertThatIllegalStateException().isThrownBy(() -> MarkdownReport.writeInto(page, "run"))
            .withMessageContaining("the end first");
    }

    @Test
    void theRealPagesHaveWellFormedMarkers() throws Exception {
        Path docs = Path.of("..", "docs");
        assertThat(count(Files.readString(docs.resolve("benchmarks.md")), BEGIN)).isOne();
        assertThat(count(Files.readString(docs.resolve("benchmarks.md")), END)).isOne();
    }

    private static int count(String text, String marker) {
        return text.split(java.util.regex.Pattern.quote(marker), -1).length - 1;
    }
}
