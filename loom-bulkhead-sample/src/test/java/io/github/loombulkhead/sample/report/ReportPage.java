package io.github.loombulkhead.sample.report;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

import javax.imageio.ImageIO;

import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.within;

/**
 * Opens a report.html in headless Chromium and checks it against the report it was made from: every table
 * cell shows the report's number, and every chart drew one visible line per mode from the right data.
 */
public final class ReportPage {

    /** The colours of the modes' lines, by position in the report (see report.html). */
    private static final int[] COLORS = { 0x1f77b4, 0xd62728, 0xff7f0e, 0x2ca02c, 0x17becf, 0x9467bd, 0x8c564b,
            0xe377c2, 0xbcbd22, 0x7f7f7f, 0x393b79, 0xad494a };

    /** The colour of the callee's capacity on the limit chart (see report.html). */
    private static final int CAPACITY_COLOR = 0x000000;

    /** The colour of the replicas' sum on the per-replica charts (see report.html). */
    private static final int TOTAL_COLOR = 0x000000;

    private final ChromeDriver driver;

    private ReportPage(ChromeDriver driver) {
        this.driver = driver;
    }

    /** Loads {@code html} and waits until its script has drawn the charts. */
    public static ReportPage open(Chromium chromium, Path html) {
        ChromeDriver driver = chromium.driver();
        driver.get(html.toUri().toString());
        await().atMost(Duration.ofSeconds(30))
            .until(() -> driver.findElement(By.tagName("body")).getAttribute("data-charts-drawn") != null);
        return new ReportPage(driver);
    }

    /** Asserts the whole page against {@code report}. */
    public void assertMatches(Report report) {
        assertNoNetwork();
        assertTable("results", ReportTable.RESULTS, report);
        assertTable("failures", ReportTable.FAILURES, report);
        assertLegend(report);
        assertCharts(report);
        assertCapacity(report);
        assertReplicaCharts(report);
    }

    /**
     * With several replicas, one chart per mode draws each replica's calls in flight from its own time series,
     * their sum (black, on top) and the limit; a run in one process has none.
     */
    void assertReplicaCharts(Report report) {
        List<WebElement> figures = this.driver.findElements(By.cssSelector("#replica-charts figure"));
        List<RunReport> replicated = report.runs().stream().filter((run) -> run.replicas() != null).toList();
        assertThat(figures).extracting((f) -> f.getAttribute("data-mode"))
            .containsExactlyElementsOf(replicated.stream().map(RunReport::mode).toList());
        for (int f = 0; f < figures.size(); f++) {
            WebElement figure = figures.get(f);
            RunReport run = replicated.get(f);
            List<ReplicaReport> replicas = Objects.requireNonNull(run.replicas());
            List<WebElement> lines = figure.findElements(By.cssSelector("svg path[data-series='replica']"));
            assertThat(lines).as(run.mode() + " replica lines").hasSize(replicas.size());
            for (int i = 0; i < lines.size(); i++) {
                ReplicaReport replica = replicas.get(i);
                WebElement line = lines.get(i);
                assertThat(line.getAttribute("data-replica")).isEqualTo(String.valueOf(replica.replica()));
                assertThat(line.getAttribute("data-points")).isEqualTo(String.valueOf(replica.timeline().size()));
                assertThat(line.getAttribute("d").split("[ML]")).hasSize(replica.timeline().size() + 1);
                assertThat(Integer.parseInt(line.getAttribute("data-max")))
                    .isEqualTo(replica.timeline().stream().mapToInt(TimelinePoint::inFlight).max().orElse(0));
            }
            assertThat(figure.findElements(By.cssSelector(".legend span"))).extracting(WebElement::getText)
                .as(run.mode() + " legend")
                .containsExactlyElementsOf(Stream.concat(replicas.stream().map((r) -> "replica " + r.replica()),
                        Stream.of("all replicas")).toList());
            WebElement total = figure.findElement(By.cssSelector("svg path[data-series='total']"));
            assertThat(total.getAttribute("data-points")).isEqualTo(String.valueOf(run.timeline().size()));
            assertThat(Integer.parseInt(total.getAttribute("data-max"))).isEqualTo(run.peakInFlight());
            WebElement limit = figure.findElement(By.cssSelector("svg path[data-series='limit']"));
            assertThat(limit.getAttribute("data-value")).isEqualTo(String.valueOf(report.scenario().limit()));
        }
        assertReplicaTotalsPainted();
    }

    /** Every per-replica chart shows the sum of the replicas, in its colour, on screen. */
    void assertReplicaTotalsPainted() {
        for (WebElement figure : this.driver.findElements(By.cssSelector("#replica-charts figure"))) {
            assertPainted(figure, "replicaInFlight " + figure.getAttribute("data-mode"), TOTAL_COLOR,
                    "the total's colour, drawn last");
        }
    }

    /** Nothing was fetched: no scripts, styles, images or fonts from anywhere. */
    void assertNoNetwork() {
        Object resources = this.driver.executeScript("return performance.getEntriesByType('resource').length");
        assertThat(((Number) Objects.requireNonNull(resources)).intValue()).as("resources fetched by the page")
            .isZero();
        assertThat(this.driver.findElements(By.cssSelector("script[src], link[href], img[src], iframe"))).isEmpty();
    }

    void assertTable(String id, List<ReportTable.Column> columns, Report report) {
        List<WebElement> rows = this.driver.findElements(By.cssSelector("#" + id + " tbody tr"));
        assertThat(rows).hasSize(report.runs().size());
        for (int r = 0; r < rows.size(); r++) {
            RunReport run = report.runs().get(r);
            assertThat(rows.get(r).getAttribute("data-mode")).isEqualTo(run.mode());
            List<WebElement> cells = rows.get(r).findElements(By.tagName("td"));
            assertThat(cells).hasSize(columns.size());
            for (int c = 0; c < columns.size(); c++) {
                ReportTable.Column column = columns.get(c);
                WebElement cell = cells.get(c);
                Object expected = column.value().apply(run);
                assertThat(cell.getAttribute("data-field")).isEqualTo(column.field());
                assertThat(cell.getAttribute("data-value")).as(run.mode() + " " + column.field())
                    .isEqualTo(String.valueOf(expected));
                assertShown(run.mode() + " " + column.field(), cell.getText(), expected);
            }
        }
    }

    /** The text a reader sees carries the same number as report.json, in the unit of its column. */
    private static void assertShown(String what, String text, Object expected) {
        if (expected == null) {
            assertThat(text).as(what).isEqualTo("n/a");
            return;
        }
        if (expected instanceof String string) {
            assertThat(text).as(what).isEqualTo(string);
            return;
        }
        double value = ((Number) expected).doubleValue();
        String first = text.trim().split(" ")[0].replace(",", "");
        double shown = Double.parseDouble(first);
        if (text.endsWith(" MB") || text.endsWith(" MB)")) {
            assertThat(shown).as(what).isCloseTo(value / (1024 * 1024), within(0.051));
        }
        else if (text.endsWith(" s")) {
            assertThat(shown).as(what).isCloseTo(value / 1000, within(0.0051));
        }
        else if (text.endsWith(" %")) {
            assertThat(shown).as(what).isCloseTo(value * 100, within(0.051));
        }
        else {
            assertThat(shown).as(what).isEqualTo(value);
        }
    }

    void assertLegend(Report report) {
        List<String> legend = this.driver.findElements(By.cssSelector("#legend [data-mode]"))
            .stream()
            .map(WebElement::getText)
            .toList();
        assertThat(legend).containsExactlyElementsOf(report.runs().stream().map(RunReport::mode).toList());
    }

    void assertCharts(Report report) {
        List<WebElement> figures = this.driver.findElements(By.cssSelector("#charts figure"));
        assertThat(figures).extracting((f) -> f.getAttribute("data-measure"))
            .containsExactly("completed", "inFlight", "limit", "waiting", "platformThreads", "virtualThreads", "heapUsedBytes",
                    "threadStackReservedDeltaBytes");
        for (WebElement figure : figures) {
            String measure = figure.getAttribute("data-measure");
            List<RunReport> withData = report.runs()
                .stream()
                .filter((run) -> run.timeline().stream().anyMatch((p) -> value(p, measure) != null))
                .toList();
            if (withData.isEmpty()) {
                assertThat(figure.getText()).contains("Not measured");
                continue;
            }
            List<WebElement> paths = figure.findElements(By.cssSelector("svg path[data-mode]"));
            assertThat(paths).as(measure + " lines").hasSize(withData.size());
            for (int i = 0; i < paths.size(); i++) {
                WebElement path = paths.get(i);
                RunReport run = withData.get(i);
                List<Number> values = run.timeline()
                    .stream()
                    .map((p) -> value(p, measure))
                    .filter(Objects::nonNull)
                    .toList();
                assertThat(path.getAttribute("data-mode")).isEqualTo(run.mode());
                assertThat(path.getAttribute("data-points")).as(measure + " " + run.mode())
                    .isEqualTo(String.valueOf(values.size()));
                assertThat(path.getAttribute("d").split("[ML]")).as(measure + " " + run.mode() + " path")
                    .hasSize(values.size() + 1);
                double max = values.stream().mapToDouble(Number::doubleValue).max().orElseThrow();
                assertThat(Double.parseDouble(path.getAttribute("data-max"))).isEqualTo(max);
                Number length = (Number) this.driver.executeScript("return arguments[0].getTotalLength()", path);
                if (values.size() > 1 && values.stream().distinct().count() > 1) {
                    assertThat(Objects.requireNonNull(length).doubleValue()).as(measure + " " + run.mode() + " drawn")
                        .isPositive();
                }
            }
            // The last line drawn is on top: modes with the same values (e.g. the same static limit) hide the others.
            RunReport top = withData.get(withData.size() - 1);
            assertPainted(figure, measure, COLORS[report.runs().indexOf(top) % COLORS.length],
                    "the colour of " + top.mode() + ", drawn last");
        }
    }

    /**
     * The limit chart draws the callee's capacity as steps: its initial value, then two points per change that
     * happened within the time the chart shows, and a last one at its end.
     */
    void assertCapacity(Report report) {
        WebElement figure = this.driver.findElement(By.cssSelector("#charts figure[data-measure='limit']"));
        List<WebElement> lines = figure.findElements(By.cssSelector("svg path[data-series='capacity']"));
        if (report.runs().stream().flatMap((run) -> run.timeline().stream()).allMatch((p) -> p.limit() == null)) {
            assertThat(lines).isEmpty();
            return;
        }
        long end = report.runs()
            .stream()
            .flatMap((run) -> run.timeline().stream())
            .filter((p) -> p.limit() != null)
            .mapToLong(TimelinePoint::elapsedMs)
            .max()
            .orElseThrow();
        long changes = report.scenario().capacityChanges().stream().filter((c) -> c.atMs() < end).count();
        assertThat(lines).as("capacity line").hasSize(1);
        assertThat(lines.get(0).getAttribute("data-points")).isEqualTo(String.valueOf(2 + 2 * changes));
        assertThat(lines.get(0).getAttribute("d").split("[ML]")).hasSize((int) (2 + 2 * changes) + 1);
        assertPainted(figure, "limit", CAPACITY_COLOR, "the capacity's colour");
    }

    /**
     * {@code color} is really on screen inside the chart of {@code figure}: its {@code svg} only, without the
     * figure's legend, whose swatches have the lines' colours.
     */
    private void assertPainted(WebElement figure, String measure, int color, String what) {
        WebElement chart = figure.findElement(By.cssSelector("svg[data-measure]"));
        this.driver.executeScript("arguments[0].scrollIntoView()", chart);
        byte[] png = chart.getScreenshotAs(OutputType.BYTES);
        try {
            BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
            int matching = 0;
            for (int y = 0; y < image.getHeight(); y++) {
                for (int x = 0; x < image.getWidth(); x++) {
                    if (close(image.getRGB(x, y) & 0xffffff, color)) {
                        matching++;
                    }
                }
            }
            assertThat(matching).as("pixels of " + what + " in chart " + measure).isGreaterThan(20);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static boolean close(int rgb, int expected) {
        for (int shift = 0; shift <= 16; shift += 8) {
            if (Math.abs(((rgb >> shift) & 0xff) - ((expected >> shift) & 0xff)) > 24) {
                return false;
            }
        }
        return true;
    }

    private static Number value(TimelinePoint point, String measure) {
        return switch (measure) {
            case "completed" -> point.completed();
            case "inFlight" -> point.inFlight();
            case "waiting" -> point.waiting();
            case "platformThreads" -> point.platformThreads();
            case "virtualThreads" -> point.virtualThreads();
            case "heapUsedBytes" -> point.heapUsedBytes();
            case "threadStackReservedDeltaBytes" -> point.threadStackReservedDeltaBytes();
            case "limit" -> point.limit();
            default -> throw new IllegalArgumentException(measure);
        };
    }
}
