package io.github.loombulkhead.sample.report;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * report.html renders in headless Chromium: tables carry report.json's numbers and every chart draws, the limit
 * chart with the callee's capacity beside the modes' limits.
 */
class ReportHtmlTest {

    @TempDir
    static Path temp;

    private static Chromium chromium;

    private final ReportWriter writer = new ReportWriter();

    @BeforeAll
    static void startBrowser() {
        chromium = Chromium.start(temp.resolve("profile"));
    }

    @AfterAll
    static void stopBrowser() {
        if (chromium != null) {
            chromium.close();
        }
    }

    @Test
    void tablesAndChartsMatchTheReport() {
        Report report = SampleReports.threeModes();
        ReportWriter.Written written = this.writer.write(report, temp.resolve("full"));
        assertThat(this.writer.read(written.json())).isEqualTo(report);
        ReportPage.open(chromium, written.html()).assertMatches(report);
    }

    @Test
    void limitChartFollowsTheAdaptiveLimitBesideTheCalleesChangingCapacity() {
        Report report = SampleReports.adaptive();
        ReportWriter.Written written = this.writer.write(report, temp.resolve("adaptive"));
        assertThat(this.writer.read(written.json())).isEqualTo(report);
        ReportPage page = ReportPage.open(chromium, written.html());
        page.assertMatches(report);
        WebElement adaptive = chromium.driver()
            .findElement(By.cssSelector("#charts figure[data-measure='limit'] path[data-mode='loom-bulkhead-adaptive']"));
        assertThat(adaptive.getAttribute("data-max")).isEqualTo("200");
        assertThat(adaptive.getAttribute("data-points")).isEqualTo("35");
        // A moving limit: its line passes through many heights (a static one has a single height).
        Set<String> heights = Arrays.stream(adaptive.getAttribute("d").split("[ML] ?"))
            .filter((point) -> !point.isBlank())
            .map((point) -> point.trim().split(" ")[1])
            .collect(Collectors.toSet());
        assertThat(heights).hasSizeGreaterThan(10);
        WebElement capacity = chromium.driver()
            .findElement(By.cssSelector("#charts figure[data-measure='limit'] path[data-series='capacity']"));
        // 0 s at 200, 1 s from 200 to 60, 2.5 s from 60 to 200, 3.5 s at 200.
        assertThat(capacity.getAttribute("data-points")).isEqualTo("6");
        assertThat(chromium.driver().findElement(By.cssSelector("#results tr[data-mode='loom-bulkhead-adaptive'] "
                + "td[data-field='littlesLawBoundMs']")).getText()).isEqualTo("1.97 s");
    }

    @Test
    void chartOfAMeasureThatWasNotTakenSaysSoAndTheTableShowsNa() throws Exception {
        Report report = SampleReports.withoutNativeMemory();
        ReportWriter.Written written = this.writer.write(report, temp.resolve("no-nmt"));
        ReportPage.open(chromium, written.html()).assertMatches(report);
        assertThat(Files.readString(written.markdown())).contains("| n/a |");
    }

    @Test
    void replicasChartShowsEveryReplicaAndTheirSumPerMode() throws Exception {
        Report report = SampleReports.replicated();
        ReportWriter.Written written = this.writer.write(report, temp.resolve("replicas"));
        assertThat(this.writer.read(written.json())).isEqualTo(report);
        ReportPage.open(chromium, written.html()).assertMatches(report);
        assertThat(chromium.driver().findElements(By.cssSelector("#replica-table tbody tr"))).as("3 replicas + all, twice")
            .hasSize(8);
        assertThat(Files.readString(written.markdown())).contains("Replicas:")
            .contains("| loom-bulkhead | all | 1,000 | 937 | 63 | 93.7 % |")
            .contains("(callee served at once: 100) |");
    }

    @Test
    void replicasChartWithoutItsTotalLineIsCaughtThoughTheLegendShowsItsColour() {
        Report report = SampleReports.replicated();
        ReportWriter.Written written = this.writer.write(report, temp.resolve("replicas-without-total"));
        ReportPage page = ReportPage.open(chromium, written.html());
        chromium.driver()
            .executeScript("document.querySelectorAll(\"path[data-series='total']\").forEach((p) => p.remove())");
        assertThatExceptionOfType(AssertionError.class).isThrownBy(page::assertReplicaTotalsPainted)
            .withMessageContaining("[pixels of the total's colour, drawn last in chart replicaInFlight loom-bulkhead]");
    }
}
