package io.github.loombulkhead.sample.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.loombulkhead.sample.SampleArgumentException;
import org.jspecify.annotations.Nullable;

/**
 * Runs {@code ab} (ApacheBench, Debian package {@code apache2-utils}) as a process and reads its summary. Runs
 * with {@code -r} (socket errors are counted, not fatal) and {@code -l} (answers of different lengths are not
 * failures: a front server's 200, 500 and 503 bodies differ), so "failed" counts connections and reads that failed.
 * ab's "Complete requests" also counts requests that got no answer at all: with {@code -r}, each that failed, and with
 * {@code -l}, each whose connection the server closed without sending a byte (neither is failed nor non-2xx then).
 * So ab also runs with {@code -v 3}, which logs the status of every answer, and the answers with a 2xx status are
 * counted from that log.
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

    /** What ab -v 3 logs for each answer with a 2xx status; a non-2xx one is logged as a warning instead. */
    private static final Pattern ANSWERED_2XX = Pattern.compile("(?m)^LOG: Response code = 2\\d\\d$");

    private final String binary;

    ApacheBench(String binary) {
        this.binary = binary;
    }

    /** Checks that ab runs, and says which package to install when it does not. */
    String version() {
        Process process = null;
        try {
            process = new ProcessBuilder(this.binary, "-V").redirectErrorStream(true).start();
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
        finally {
            destroy(process);
        }
    }

    /**
     * Sends {@code requests} GETs to {@code url}, {@code concurrency} at a time, and returns ab's summary. ab is
     * stopped when this ends in any other way than by its end.
     */
    AbResult run(String url, int requests, int concurrency, int timeoutSeconds) {
        List<String> command = new ArrayList<>(List.of(this.binary, "-r", "-l", "-q", "-v", "3", "-s",
                Integer.toString(timeoutSeconds), "-n", Integer.toString(requests), "-c",
                Integer.toString(concurrency), url));
        Process process = null;
        try {
            // Its errors apart, so that none lands in the middle of a logged status line.
            process = new ProcessBuilder(command).start();
            Process started = process;
            FutureTask<String> errors = new FutureTask<>(() -> readAll(started.getErrorStream()));
            Thread.ofVirtual().name("ab-stderr").start(errors);
            String out = readAll(process.getInputStream());
            int exit = process.waitFor();
            String err = errors.get();
            if (exit != 0 || !COMPLETE.matcher(out).find()) {
                throw new IllegalStateException("ab ended with code " + exit + " (" + String.join(" ", command)
                        + "):\n" + summary(out) + lastLines(err, 20));
            }
            return parse(out);
        }
        catch (IOException | UncheckedIOException | ExecutionException ex) {
            throw new IllegalStateException("Could not run " + String.join(" ", command) + ": " + ex.getMessage(), ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while ab was running", ex);
        }
        finally {
            destroy(process);
        }
    }

    private static String readAll(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** ab's output without the log of each answer. */
    private static String summary(String out) {
        int start = out.indexOf("Server Software:");
        return (start >= 0) ? out.substring(start) : out.lines().filter((line) -> !line.startsWith("LOG: ")).limit(40)
            .reduce("", (all, line) -> all + line + "\n");
    }

    private static String lastLines(String text, int count) {
        List<String> lines = text.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
    }

    private static void destroy(@Nullable Process process) {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
        }
    }

    /**
     * Reads ab's output: the counts, the answers with a 2xx status (from the log of {@code -v 3}) and their rate,
     * ab's req/s, the mean and the 50 % and 99 % percentiles of the requests' times, and ab's "Time per request",
     * which is what the reference quoted as mean latency.
     */
    static AbResult parse(String out) {
        long answered2xx = ANSWERED_2XX.matcher(out).results().count();
        // ab gives the time in milliseconds; a run that took less than one (nothing answered) counts as one.
        double seconds = doubleOf(TOTAL, out);
        return new AbResult(longOf(COMPLETE, out, -1), answered2xx, longOf(FAILED, out, -1), longOf(NON_2XX, out, 0),
                answered2xx / Math.max(seconds, 0.001), doubleOf(RPS, out), doubleOf(MEAN, out), doubleOf(TIME_PER_REQUEST, out),
                percentile(out, 50), percentile(out, 99), Math.round(seconds * 1000));
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
     * @param complete requests ab completed: answered, failed, or closed by the server without an answer
     * @param answered2xx requests answered with a 2xx status
     * @param failed ab's failures (connect, receive, length, exceptions): events, not requests, a request may count
     * twice
     * @param non2xx answers with a status outside 2xx
     * @param answered2xxPerSecond answers with a 2xx status per second of the run
     * @param requestsPerSecond ab's req/s: complete requests per second, answered or not
     * @param meanMs mean time of a request, from connect to its last byte
     * @param timePerRequestMs ab's "Time per request" (concurrency / ab's req/s)
     * @param p50Ms time within which half of the requests were completed
     * @param p99Ms time within which 99 % were completed
     * @param durationMs time the run took
     */
    record AbResult(long complete, long answered2xx, long failed, long non2xx, double answered2xxPerSecond,
            double requestsPerSecond, double meanMs, double timePerRequestMs, long p50Ms, long p99Ms,
            long durationMs) {

        /** Requests that got no answer with a status: refused, reset, timed out, or closed without a byte. */
        long unanswered() {
            return Math.max(0, this.complete - this.answered2xx - this.non2xx);
        }
    }
}
