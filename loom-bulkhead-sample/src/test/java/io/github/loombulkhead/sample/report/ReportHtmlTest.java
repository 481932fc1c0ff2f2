package io.github.loombulkhead.sample.report;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** report.html renders in headless Chromium: tables carry report.json's numbers and every chart draws. */
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
    void chartOfAMeasureThatWasNotTakenSaysSoAndTheTableShowsNa() throws Exception {
        Report report = SampleReports.withoutNativeMemory();
        ReportWriter.Written written = this.writer.write(report, temp.resolve("no-nmt"));
        ReportPage.open(chromium, written.html()).assertMatches(report);
        assertThat(Files.readString(written.markdown())).contains("| n/a |");
    }
}
