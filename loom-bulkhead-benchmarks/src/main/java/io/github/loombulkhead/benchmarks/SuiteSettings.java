package io.github.loombulkhead.benchmarks;

import java.time.Duration;
import java.util.List;

/**
 * How long and how often the suite measures. {@link #quick()} is the default (a few minutes on 2 cores),
 * {@link #thorough()} is {@code --long}, {@link #smoke()} runs everything once, tiny and in-process, for tests.
 */
public record SuiteSettings(String name, int forks, int warmupIterations, Duration warmupTime, int iterations,
        Duration iterationTime, int burstWarmupIterations, int burstIterations, int burstTasks, List<Integer> memoryTasks, int memoryRepeats,
        Duration fairnessDuration, Duration fairnessWarmup, Duration httpWarmup, int httpRounds, boolean inProcess,
        int adaptiveShorten) {

    /** JMH -f 1 -wi 2 -w 1s -i 3 -r 1s (bursts: 5 + 10 single shots); memory once per N; fairness 3 s after 1 s warm-up; HTTP 100 rounds; adaptive limits at full length. */
    public static SuiteSettings quick() {
        return new SuiteSettings("short", 1, 2, Duration.ofSeconds(1), 3, Duration.ofSeconds(1), 5, 10, 100_000,
                List.of(100_000, 1_000_000), 1, Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofSeconds(3), 100,
                false, 1);
    }

    /** JMH -f 3 -wi 5 -w 2s -i 10 -r 2s (bursts: 10 + 20 single shots); memory three times per N; fairness 10 s after 2 s warm-up; HTTP 400 rounds; adaptive limits at full length. */
    public static SuiteSettings thorough() {
        return new SuiteSettings("long", 3, 5, Duration.ofSeconds(2), 10, Duration.ofSeconds(2), 10, 20, 100_000,
                List.of(100_000, 1_000_000), 3, Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(5), 400,
                false, 1);
    }

    /** Everything once with tiny sizes in this JVM (adaptive limits a tenth as long): proves the harness works, measures nothing. */
    public static SuiteSettings smoke() {
        return new SuiteSettings("smoke", 0, 0, Duration.ofMillis(10), 1, Duration.ofMillis(50), 0, 1, 500,
                List.of(2_000), 1, Duration.ofMillis(300), Duration.ofMillis(100), Duration.ofMillis(200), 2, true, 10);
    }

    /** The JMH command-line equivalent, for the report. */
    public String jmhFlags() {
        return "-f " + this.forks + " -wi " + this.warmupIterations + " -w " + seconds(this.warmupTime) + " -i "
                + this.iterations + " -r " + seconds(this.iterationTime) + "; bursts -wi " + this.burstWarmupIterations
                + " -i " + this.burstIterations;
    }

    private static String seconds(Duration duration) {
        return (duration.toMillis() % 1000 == 0) ? duration.toSeconds() + "s" : duration.toMillis() + "ms";
    }
}
