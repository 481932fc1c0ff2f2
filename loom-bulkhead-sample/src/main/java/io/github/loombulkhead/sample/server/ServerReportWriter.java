package io.github.loombulkhead.sample.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.util.HtmlUtils;

/**
 * Writes the server comparison's {@code report.json}, {@code report.md} and {@code report.html} (one
 * self-contained page: the table, and charts of the front server over time drawn from the embedded JSON).
 */
final class ServerReportWriter {

    private static final String TEMPLATE = "server-report.html";

    private static final List<Column> COLUMNS = List.of(new Column("Setup", ServerReport.Result::setup),
            new Column("Concurrency", (r) -> Integer.toString(r.concurrency())),
            new Column("Req/s (2xx)", (r) -> fixed(r.requestsPerSecond())),
            new Column("Little's-law bound", (r) -> fixed(r.littlesLawBound())),
            new Column("Of bound", (r) -> Math.round(r.littlesLawEfficiency() * 100) + " %"),
            new Column("Mean ms", (r) -> fixed(r.meanMs())),
            new Column("ab time/request ms", (r) -> fixed(r.abTimePerRequestMs())), new Column("p50 ms", (r) -> Long.toString(r.p50Ms())),
            new Column("p99 ms", (r) -> Long.toString(r.p99Ms())),
            new Column("Failed", (r) -> Long.toString(r.failed())),
            new Column("Non-2xx", (r) -> Long.toString(r.non2xx())),
            new Column("No answer", (r) -> Long.toString(r.unanswered())),
            new Column("Peak live threads", (r) -> Integer.toString(r.peakLiveThreads())),
            new Column("Peak heap MB", (r) -> Long.toString(r.peakHeapUsedBytes() / (1024 * 1024))),
            new Column("Peak callee calls in flight", (r) -> Integer.toString(r.peakCalleeInFlight())),
            new Column("Peak requests waiting (inbound)", (r) -> Integer.toString(r.peakInboundWaiting())),
            new Column("CPU front", (r) -> Math.round(r.meanFrontCpu() * 100) + " %"),
            new Column("CPU machine", (r) -> Math.round(r.meanMachineCpu() * 100) + " %"),
            new Column("Inbound limit + queue vs concurrency", ServerReportWriter::inbound),
            new Column("Inbound 503", (r) -> (r.inboundLimit() != null) ? Long.toString(r.inboundRejected()) : "-"));

    private final JsonMapper json = JsonMapper.builder()
        .disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
        .enable(SerializationFeature.INDENT_OUTPUT)
        .build();

    /** Writes the three files into {@code directory} and returns report.json's path. */
    Path write(ServerReport report, Path directory) {
        try {
            Files.createDirectories(directory);
            String text = this.json.writeValueAsString(report);
            Path json = directory.resolve("report.json");
            Files.writeString(json, text + "\n", StandardCharsets.UTF_8);
            Files.writeString(directory.resolve("report.md"), markdown(report), StandardCharsets.UTF_8);
            Files.writeString(directory.resolve("report.html"), html(report, text), StandardCharsets.UTF_8);
            return json;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not write the report to " + directory.toAbsolutePath(), ex);
        }
    }

    ServerReport read(Path file) {
        return this.json.readValue(file.toFile(), ServerReport.class);
    }

    static String describe(ServerReport.Scenario s) {
        String requests = (s.levelDurationMs() > 0) ? "ab -n max(" + s.requests() + ", Little's-law bound x "
                + s.levelDurationMs() / 1000.0 + " s)" : "ab -n " + s.requests();
        String warmup = (s.warmupRequests() > 0) ? "; each front server first warmed up at every level with up to "
                + s.warmupRequests() + " requests in all (at most " + s.warmupDurationMs() / 1000.0
                + " s at its bound, at least one per connection)" : "; no warm-up";
        return requests + " at concurrency " + s.concurrency() + " against each front server ("
                + String.join(", ", s.setups()) + ")" + warmup + "; every request makes " + s.callsPerRequest()
                + " calls to a callee with " + s.calleeCapacity() + " workers that answers after " + s.calleeLatencyMs()
                + " ms (read timeout " + s.readTimeoutMs() + " ms); the inbound bulkhead's max wait "
                + s.inboundMaxWaitMs() / 1000.0 + " s; " + s.cores() + " cores, ab " + s.ab()
                + ", front JVM " + String.join(" ", s.frontJvmArguments()) + ".";
    }

    static String markdown(ServerReport report) {
        StringBuilder md = new StringBuilder("# loom-bulkhead server comparison\n\n");
        md.append(describe(report.scenario())).append("\n\n|");
        COLUMNS.forEach((column) -> md.append(' ').append(column.title()).append(" |"));
        md.append("\n|");
        COLUMNS.forEach((column) -> md.append("---|"));
        md.append('\n');
        for (ServerReport.Result result : report.server()) {
            md.append('|');
            COLUMNS.forEach((column) -> md.append(' ').append(column.text().apply(result)).append(" |"));
            md.append('\n');
        }
        return md.append("\n").append(report.notes()).append('\n').toString();
    }

    static String html(ServerReport report, String json) {
        StringBuilder table = new StringBuilder("<table id=\"server\">\n<thead><tr>");
        COLUMNS.forEach((column) -> table.append("<th>").append(HtmlUtils.htmlEscape(column.title())).append("</th>"));
        table.append("</tr></thead>\n<tbody>\n");
        for (ServerReport.Result result : report.server()) {
            table.append("<tr data-setup=\"")
                .append(HtmlUtils.htmlEscape(result.setup()))
                .append("\" data-concurrency=\"")
                .append(result.concurrency())
                .append("\">");
            COLUMNS.forEach((column) -> table.append("<td>")
                .append(HtmlUtils.htmlEscape(column.text().apply(result)))
                .append("</td>"));
            table.append("</tr>\n");
        }
        table.append("</tbody>\n</table>");
        return template().replace("{{scenario}}", HtmlUtils.htmlEscape(describe(report.scenario())))
            .replace("{{results}}", table)
            .replace("{{notes}}", HtmlUtils.htmlEscape(report.notes()))
            .replace("{{json}}", json.replace("</", "<\\/").replace("<!--", "<\\u0021--"));
    }

    /**
     * The inbound bulkhead's room against the load, e.g. {@code 200 + 10000 >= 1000: sheds nothing}, or
     * {@code -} without one.
     */
    static String inbound(ServerReport.Result r) {
        if (r.inboundLimit() == null || r.inboundQueueCapacity() == null) {
            return "-";
        }
        String room = r.inboundLimit() + " + " + r.inboundQueueCapacity();
        return Boolean.TRUE.equals(r.inboundQueueHoldsLoad()) ? room + " >= " + r.concurrency() + ": sheds nothing"
                : room + " < " + r.concurrency() + ": sheds the rest with 503";
    }

    private static String fixed(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    private static String template() {
        try (InputStream in = ServerReportWriter.class.getResourceAsStream(TEMPLATE)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + TEMPLATE + " next to " + ServerReportWriter.class);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private record Column(String title, Function<ServerReport.Result, String> text) {
    }
}
