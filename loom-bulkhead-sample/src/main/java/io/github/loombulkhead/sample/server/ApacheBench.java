package io.github.loombulkhead.sample.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.loombulkhead.sample.SampleArgumentException;

/**
 * Runs {@code ab} (ApacheBench, Debian package {@code apache2-utils}) as a process and reads its summary. Runs
 * with {@code -r} (socket errors are counted, not fatal) and {@code -l} (answers of different lengths are not
 * failures), so "failed" counts connections and reads that failed.
 */
final class ApacheBench {

    private static final Pattern COMPLETE = Pattern.compile("(?m)^Complete requests:\\s+(\\d+)");

    private static final Pattern FAILED = Pattern.compile("(?m)^Failed requests:\\s+(\\d+)");

    private static final Pattern NON_2XX = Pattern.compile("(?m)^Non-2xx responses:\\s+(\\d+)");

    private static final Pattern RPS = Pattern.compile("(?m)^Requests per second:\\s+([\\d.]+)");

    /** The mean of the requests' total times (connect to last byte) in ab's "Connection Times" table. */
    private static final Pattern MEAN = Pattern.compile("(?m)^Total:\\s+\\d+\\s+(\\d+)");

    /** ab's "Time per request": concurrency / (requests per second); the mean only in a steady state. */
    private static final Pattern TIME_PER_REQUEST = Pattern
        .compile("(?m)^Time per request:\\s+([\\d.]+) \\[ms\\] \\(mean\\)$");

    private static final Pattern TOTAL = Pattern.compile("(?m)^Time taken for tests:\\s+([\\d.]+) seconds");

    private final String binary;

    ApacheBench(String binary) {
        this.binary = binary;
    }

    /** Checks that ab runs, and says which package to install when it does not. */
    String version() {
        try {
            Process process = new ProcessBuilder(this.binary, "-V").redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(10, TimeUnit.SECONDS);
            Matcher version = Pattern.compile("Version ([^ ]+)").matcher(out);
            return version.find() ? version.group(1) : out.lines().findFirst().orElse("?");
        }
        catch (IOException ex) {
            throw new SampleArgumentException("The server comparison drives the front servers with ab (ApacheBench), "
                    + "but '" + this.binary + "' cannot be run (" + ex.getMessage() + "). Install it with "
                    + "'sudo apt-get install apache2-utils' (Debian/Ubuntu; 'httpd-tools' on Fedora/RHEL, "
                    + "'brew install httpd' on macOS), or point --loom.sample.server.ab at the binary.");
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while checking ab", ex);
        }
    }

    /** Sends {@code requests} GETs to {@code url}, {@code concurrency} at a time, and returns ab's summary. */
    AbResult run(String url, int requests, int concurrency, int timeoutSeconds) {
        List<String> command = new ArrayList<>(List.of(this.binary, "-r", "-l", "-q", "-s",
                Integer.toString(timeoutSeconds), "-n", Integer.toString(requests), "-c",
                Integer.toString(concurrency), url));
        Process process = null;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int exit = process.waitFor();
            if (exit != 0 || !COMPLETE.matcher(out).find()) {
                throw new IllegalStateException("ab ended with code " + exit + " (" + String.join(" ", command)
                        + "):\n" + out);
            }
            return parse(out);
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not run " + String.join(" ", command) + ": " + ex.getMessage(), ex);
        }
        catch (InterruptedException ex) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while ab was running", ex);
        }
    }

    /**
     * Reads ab's summary: the counts, req/s, the mean and the 50 % and 99 % percentiles of the requests' times, and
     * ab's "Time per request", which is what the reference quoted as mean latency.
     */
    static AbResult parse(String out) {
        return new AbResult(longOf(COMPLETE, out, -1), longOf(FAILED, out, -1), longOf(NON_2XX, out, 0),
                doubleOf(RPS, out), doubleOf(MEAN, out), doubleOf(TIME_PER_REQUEST, out), percentile(out, 50),
                percentile(out, 99), Math.round(doubleOf(TOTAL, out) * 1000));
    }

    private static long percentile(String out, int percent) {
        Matcher matcher = Pattern.compile("(?m)^\\s*" + percent + "%\\s+(\\d+)").matcher(out);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : -1;
    }

    private static long longOf(Pattern pattern, String out, long missing) {
        Matcher matcher = pattern.matcher(out);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : missing;
    }

    private static double doubleOf(Pattern pattern, String out) {
        Matcher matcher = pattern.matcher(out);
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : Double.NaN;
    }

    /**
     * ab's summary of one run.
     *
     * @param complete requests that got an answer
     * @param failed requests that failed (connect, read, exception)
     * @param non2xx answers with a status outside 2xx
     * @param requestsPerSecond complete requests per second
     * @param meanMs mean time of a request, from connect to its last byte
     * @param timePerRequestMs ab's "Time per request" (concurrency / requests per second)
     * @param p50Ms time within which half of the requests were served
     * @param p99Ms time within which 99 % were served
     * @param durationMs time the run took
     */
    record AbResult(long complete, long failed, long non2xx, double requestsPerSecond, double meanMs,
            double timePerRequestMs, long p50Ms, long p99Ms, long durationMs) {
    }
}
