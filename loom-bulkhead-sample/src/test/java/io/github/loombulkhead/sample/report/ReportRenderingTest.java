package io.github.loombulkhead.sample.report;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The Markdown, console and HTML renderings show the report's numbers in the reference's table shape. */
class ReportRenderingTest {

    private final Report report = SampleReports.threeModes();

    @Test
    void markdownHasTheReferenceColumnsFirstAndOneRowPerMode() {
        String md = MarkdownReport.render(this.report);
        assertThat(md)
            .contains("1,000 requests at once, limit 100 (adaptive modes at most 1,000); callee: 200 worker threads, "
                    + "300 ms per request (Little's-law bound 1.50 s)")
            .contains("| mode | duration | Little's-law bound | bound / duration | succeeded | failed | success rate "
                    + "| p50 | p99 |")
            .contains("| thread-pool | 3.12 s | 1.50 s | 48.1 % | 1,000 | 0 | 100.0 % | 1,560 ms | 3,100 ms "
                    + "| 131 (+100) | 0 | ")
            .contains("| virtual-unbounded | 0.52 s | 1.50 s | 288.5 % | 200 | 800 | 20.0 % |")
            .contains("with a load average of 0.42")
            .contains("+100.0 MB")
            .contains("| mode | read timeout | connect | rejected | other |")
            .contains("| virtual-unbounded | 800 | 0 | 0 | 0 |");
    }

    @Test
    void markdownDescribesTheCapacityChangesAndTheirPiecewiseBound() {
        String md = MarkdownReport.render(SampleReports.adaptive());
        assertThat(md).contains("limit 100 (adaptive modes at most 1,000, loom-bulkhead-adaptive with gradient); "
                + "callee: 200 worker threads, then 60 from 1.00 s, 200 from 2.50 s, 300 ms per request "
                + "(Little's-law bound 1.97 s)")
            .contains("| loom-bulkhead-adaptive | 3.50 s | 1.97 s | 56.2 % | 998 | 2 | 99.8 % |");
    }

    @Test
    void consoleTableIsAlignedInColumns() {
        String[] lines = ConsoleReport.render(this.report).split("\n");
        assertThat(lines[0]).startsWith("| mode ");
        assertThat(lines[1]).matches("\\|(-+\\|)+");
        assertThat(lines[2]).hasSameSizeAs(lines[0]).startsWith("| thread-pool ");
        assertThat(lines[3]).hasSameSizeAs(lines[0]);
    }

    @Test
    void embeddedJsonCannotCloseItsScriptElement() {
        assertThat(HtmlReport.scriptSafe("{\"mode\":\"</script><!--\"}"))
            .isEqualTo("{\"mode\":\"<\\/script><\\u0021--\"}")
            .doesNotContain("</");
    }

    @Test
    void pageEmbedsTheReportAndNeedsNothingFromTheNetwork() {
        String html = HtmlReport.render(this.report, "{\"runs\":[]}");
        assertThat(html).contains("<script id=\"report-data\" type=\"application/json\">{\"runs\":[]}</script>")
            .contains("<td data-field=\"durationMs\" data-value=\"3120\">3.12 s</td>")
            .doesNotContainPattern("(src|href)=\"https?:")
            .doesNotContain("{{");
    }
}
