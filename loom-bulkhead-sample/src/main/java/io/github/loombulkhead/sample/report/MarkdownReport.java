package io.github.loombulkhead.sample.report;

import java.util.List;

/** {@code report.md}: the scenario and the tables, ready to paste into an issue. */
public final class MarkdownReport {

    private MarkdownReport() {
    }

    public static String render(Report report) {
        StringBuilder md = new StringBuilder();
        md.append("# loom-bulkhead comparison\n\n");
        md.append(ScenarioText.describe(report.scenario())).append("\n\n");
        table(md, ReportTable.titles(ReportTable.RESULTS), ReportTable.rows(ReportTable.RESULTS, report));
        md.append("\nFailures by cause:\n\n");
        table(md, ReportTable.titles(ReportTable.FAILURES), ReportTable.rows(ReportTable.FAILURES, report));
        if (ReplicaTable.applies(report)) {
            md.append("\nReplicas:\n\n");
            table(md, ReplicaTable.TITLES, ReplicaTable.rows(report));
            md.append('\n').append(ReplicaTable.NOTES).append('\n');
        }
        md.append('\n').append(ScenarioText.NOTES).append('\n');
        return md.toString();
    }

    private static void table(StringBuilder md, List<String> titles, List<List<String>> rows) {
        line(md, titles);
        md.append('|');
        titles.forEach((t) -> md.append("---|"));
        md.append('\n');
        rows.forEach((row) -> line(md, row));
    }

    private static void line(StringBuilder md, List<String> cells) {
        md.append("| ").append(String.join(" | ", cells)).append(" |\n");
    }
}
