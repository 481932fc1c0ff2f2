package io.github.loombulkhead.sample.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.springframework.web.util.HtmlUtils;

/**
 * {@code report.html}: one self-contained page (no network needed) with the tables rendered here and one
 * SVG chart per measure over time, drawn by inline JavaScript from the embedded report.json.
 */
public final class HtmlReport {

    private static final String TEMPLATE = "report.html";

    private HtmlReport() {
    }

    /** The page for {@code report}; {@code json} is the report as written to report.json. */
    public static String render(Report report, String json) {
        return template().replace("{{scenario}}", HtmlUtils.htmlEscape(ScenarioText.describe(report.scenario())))
            .replace("{{results}}", table("results", ReportTable.RESULTS, report))
            .replace("{{failures}}", table("failures", ReportTable.FAILURES, report))
            .replace("{{replicas}}", replicas(report))
            .replace("{{notes}}", HtmlUtils.htmlEscape(ScenarioText.NOTES))
            .replace("{{json}}", scriptSafe(json));
    }

    private static String table(String id, List<ReportTable.Column> columns, Report report) {
        StringBuilder html = new StringBuilder("<table id=\"").append(id).append("\">\n<thead><tr>");
        for (ReportTable.Column column : columns) {
            html.append("<th>").append(HtmlUtils.htmlEscape(column.title())).append("</th>");
        }
        html.append("</tr></thead>\n<tbody>\n");
        for (RunReport run : report.runs()) {
            html.append("<tr data-mode=\"").append(HtmlUtils.htmlEscape(run.mode())).append("\">");
            for (ReportTable.Column column : columns) {
                Object value = column.value().apply(run);
                html.append("<td data-field=\"")
                    .append(column.field())
                    .append("\" data-value=\"")
                    .append(HtmlUtils.htmlEscape(String.valueOf(value)))
                    .append("\">")
                    .append(HtmlUtils.htmlEscape(column.text().apply(run)))
                    .append("</td>");
            }
            html.append("</tr>\n");
        }
        return html.append("</tbody>\n</table>").toString();
    }

    /** The replicas' table and notes, or nothing for a run in one process (the charts are drawn by the script). */
    private static String replicas(Report report) {
        if (!ReplicaTable.applies(report)) {
            return "";
        }
        StringBuilder html = new StringBuilder("<h2 id=\"replicas\">Replicas</h2>\n<table id=\"replica-table\">\n<thead><tr>");
        ReplicaTable.TITLES.forEach((title) -> html.append("<th>").append(HtmlUtils.htmlEscape(title)).append("</th>"));
        html.append("</tr></thead>\n<tbody>\n");
        for (List<String> row : ReplicaTable.rows(report)) {
            html.append("<tr data-mode=\"").append(HtmlUtils.htmlEscape(row.get(0))).append("\" data-replica=\"")
                .append(HtmlUtils.htmlEscape(row.get(1))).append("\">");
            row.forEach((cell) -> html.append("<td>").append(HtmlUtils.htmlEscape(cell)).append("</td>"));
            html.append("</tr>\n");
        }
        html.append("</tbody>\n</table>\n<p class=\"scenario\">").append(HtmlUtils.htmlEscape(ReplicaTable.NOTES))
            .append("</p>\n");
        return html.toString();
    }

    /** JSON that cannot end the script element it is embedded in. */
    static String scriptSafe(String json) {
        return json.replace("</", "<\\/").replace("<!--", "<\\u0021--");
    }

    private static String template() {
        try (InputStream in = HtmlReport.class.getResourceAsStream(TEMPLATE)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + TEMPLATE + " next to " + HtmlReport.class);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
