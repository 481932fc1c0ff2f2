package io.github.loombulkhead.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import io.github.loombulkhead.benchmarks.SuiteSettings;

/** Where and how a run was measured: printed above the tables so a reader can judge the numbers. */
public record SuiteEnvironment(String command, SuiteSettings settings, Instant started, Instant finished, String jdk,
        int cpus, String os, String cpuModel, String loadAtStart, String loadAtEnd) {

    /** Captures the current JVM and machine. */
    public static SuiteEnvironment capture(String command, SuiteSettings settings, Instant started, String loadAtStart) {
        String jdk = System.getProperty("java.vendor") + " " + System.getProperty("java.runtime.version") + " ("
                + System.getProperty("java.vm.name") + ")";
        String os = System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch");
        return new SuiteEnvironment(command, settings, started, Instant.now().truncatedTo(ChronoUnit.SECONDS), jdk,
                Runtime.getRuntime().availableProcessors(), os, readCpuModel(), loadAtStart, loadAverage());
    }

    /** The 1, 5 and 15 minute load averages from {@code /proc/loadavg}, or "n/a". */
    public static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + " / " + fields[1] + " / " + fields[2];
        }
        catch (IOException | RuntimeException ex) {
            return "n/a";
        }
    }

    private static String readCpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo"))
                .stream()
                .filter((line) -> line.startsWith("model name"))
                .map((line) -> line.substring(line.indexOf(':') + 1).trim())
                .findFirst()
                .orElse("n/a");
        }
        catch (IOException | RuntimeException ex) {
            return "n/a";
        }
    }
}
