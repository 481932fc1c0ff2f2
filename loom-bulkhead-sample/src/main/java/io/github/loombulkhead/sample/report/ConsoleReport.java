package io.github.loombulkhead.sample.report;

import java.util.ArrayList;
import java.util.List;

/** The result tables as padded text for the console. */
public final class ConsoleReport {

    private ConsoleReport() {
    }

    public static String render(Report report) {
        StringBuilder out = new StringBuilder();
        table(out, ReportTable.titles(ReportTable.RESULTS), ReportTable.rows(ReportTable.RESULTS, report));
        out.append('\n');
        out.append("Failures by cause:\n");
        table(out, ReportTable.titles(ReportTable.FAILURES), ReportTable.rows(ReportTable.FAILURES, report));
        return out.toString();
    }

    private static void table(StringBuilder out, List<String> titles, List<List<String>> rows) {
        int[] widths = new int[titles.size()];
        List<List<String>> all = new ArrayList<>();
        all.add(titles);
        all.addAll(rows);
        for (List<String> row : all) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        line(out, titles, widths);
        StringBuilder rule = new StringBuilder("|");
        for (int width : widths) {
            rule.append("-".repeat(width + 2)).append('|');
        }
        out.append(rule).append('\n');
        rows.forEach((row) -> line(out, row, widths));
    }

    private static void line(StringBuilder out, List<String> cells, int[] widths) {
        out.append('|');
        for (int i = 0; i < cells.size(); i++) {
            String cell = cells.get(i);
            String padded = (i == 0) ? cell + " ".repeat(widths[i] - cell.length())
                    : " ".repeat(widths[i] - cell.length()) + cell;
            out.append(' ').append(padded).append(" |");
        }
        out.append('\n');
    }
}
