package io.github.loombulkhead.benchmarks.adaptive;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.loombulkhead.benchmarks.report.MarkdownReport;

/**
 * Runs every {@link Contender} through every scenario against a queueing callee in virtual time (seconds of CPU for
 * minutes of simulated traffic) and prints the Markdown tables.
 *
 * <pre>
 * java -cp benchmarks.jar io.github.loombulkhead.benchmarks.adaptive.AdaptiveLimitSimulation [--short]
 *     [--spread=SIGMA] [--stalls=PERCENT] [--timeout-ms=MS] [--skip-abandoned] [--reject-when-full] [--docs=FILE]
 * </pre>
 * {@code --short} divides every duration by ten; {@code --spread}, {@code --stalls}, {@code --timeout-ms},
 * {@code --skip-abandoned} and {@code --reject-when-full} change the callee (log-normal sigma of the service time,
 * the percentage of calls that take {@value CalleeModel#STALL_FACTOR} times as long whatever the load, the caller's
 * read timeout, a callee that skips queued calls whose caller already gave up, one that rejects a call finding every
 * worker busy instead of queueing it); {@code --docs} replaces the generated section of that Markdown page.
 */
public final class AdaptiveLimitSimulation {

    /** Seed of every run: the same arrivals and service times for every algorithm. */
    public static final long SEED = 20_261_121L;

    /** Workers of the standard callee. */
    public static final int CAPACITY = 200;

    private AdaptiveLimitSimulation() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        CalleeModel callee = CalleeModel.standard();
        Path docs = null;
        for (String arg : args) {
            if (arg.equals("--short")) {
                quick = true;
            }
            else if (arg.startsWith("--spread=")) {
                callee = callee.withServiceSpread(spread(arg.substring("--spread=".length())));
            }
            else if (arg.startsWith("--timeout-ms=")) {
                callee = callee.withReadTimeout(Duration.ofMillis(timeoutMillis(arg.substring("--timeout-ms=".length()))));
            }
            else if (arg.startsWith("--stalls=")) {
                callee = callee.withStallShare(stallShare(arg.substring("--stalls=".length())));
            }
            else if (arg.equals("--reject-when-full")) {
                callee = callee.withRejectsWhenFull(true);
            }
            else if (arg.equals("--skip-abandoned")) {
                callee = callee.withServesAbandonedCalls(false);
            }
            else if (arg.startsWith("--docs=")) {
                docs = Path.of(arg.substring("--docs=".length()));
            }
            else {
                throw new IllegalArgumentException("Unknown option '" + arg
                        + "'; use --short, --spread=SIGMA, --stalls=PERCENT, --timeout-ms=MS, --skip-abandoned, "
                        + "--reject-when-full, --docs=FILE");
            }
        }
        String markdown = AdaptiveReport.render(run(quick ? 10 : 1, callee));
        System.out.println(markdown);
        if (docs != null) {
            MarkdownReport.writeInto(docs, markdown, AdaptiveReport.BEGIN, AdaptiveReport.END);
            System.out.println("Updated the results section of " + docs);
        }
    }

    /** The log-normal sigma {@code --spread} gives: a finite number of at least 0 (0 is a fixed service time). */
    static double spread(String value) {
        double sigma = numberOr(value, Double.NaN);
        if (!(sigma >= 0) || Double.isInfinite(sigma)) {
            throw new IllegalArgumentException("--spread=" + value + ": the log-normal sigma of the service time must "
                    + "be a number of at least 0, such as --spread=0.1 (0.01 is an almost fixed service time)");
        }
        return sigma;
    }

    /**
     * The share of stalled calls {@code --stalls} gives, as a fraction: a percentage from 0 up to, not including, 100.
     */
    static double stallShare(String value) {
        double percent = numberOr(value, Double.NaN);
        if (!(percent >= 0 && percent < 100)) {
            throw new IllegalArgumentException("--stalls=" + value + ": the percentage of calls that stall "
                    + CalleeModel.STALL_FACTOR + " times as long must be a number from 0 up to, not including, 100, "
                    + "such as --stalls=1");
        }
        return percent / 100;
    }

    /** The read timeout {@code --timeout-ms} gives: whole milliseconds, at least 1. */
    static long timeoutMillis(String value) {
        long millis = wholeNumberOr(value, 0);
        if (millis < 1) {
            throw new IllegalArgumentException("--timeout-ms=" + value + ": the caller's read timeout must be a whole "
                    + "number of milliseconds of at least 1, such as --timeout-ms=500");
        }
        return millis;
    }

    /** {@code value} as a number, or {@code otherwise} when it is not one. */
    static double numberOr(String value, double otherwise) {
        try {
            return Double.parseDouble(value);
        }
        catch (NumberFormatException ex) {
            return otherwise;
        }
    }

    /** {@code value} as a whole number, or {@code otherwise} when it is not one. */
    static long wholeNumberOr(String value, long otherwise) {
        try {
            return Long.parseLong(value);
        }
        catch (NumberFormatException ex) {
            return otherwise;
        }
    }

    /** Every contender in every scenario and the burst against {@code callee}, durations divided by {@code shorten}. */
    public static AdaptiveResults run(int shorten, CalleeModel callee) {
        List<Contender> contenders = List.of(Contender.values());
        List<SimulationResult> results = new ArrayList<>();
        for (Scenario scenario : scenarios(shorten)) {
            for (Contender contender : contenders) {
                Trace trace = LimitSimulation.run(scenario, callee, contender.create(callee.ceiling(), SEED), SEED);
                results.add(Metrics.of(scenario, callee, contender, trace));
            }
        }
        CalleeModel patient = callee.withMaxWait(Duration.ofSeconds(60));
        List<BurstResult> bursts = new ArrayList<>();
        for (Scenario burst : bursts()) {
            for (Contender contender : contenders) {
                Trace trace = LimitSimulation.run(burst, patient, contender.create(callee.ceiling(), SEED), SEED);
                bursts.add(BurstResult.of(burst, patient, contender.label(), trace));
            }
            Trace told = LimitSimulation.run(burst, patient, new ToldTheCapacity(burst), SEED);
            bursts.add(BurstResult.of(burst, patient, ToldTheCapacity.LABEL, told));
            if (!burst.capacitySteps().isEmpty()) {
                Trace late = LimitSimulation.run(burst, patient, ToldTheCapacity.late(burst), SEED);
                bursts.add(BurstResult.of(burst, patient, ToldTheCapacity.LATE_LABEL, late));
            }
        }
        for (CallerPause.Burst paused : pausedBursts()) {
            for (Contender contender : contenders) {
                Trace trace = LimitSimulation.run(paused.scenario(), patient, contender.create(callee.ceiling(), SEED),
                        SEED, List.of(paused.pause()));
                bursts.add(BurstResult.of(paused.scenario(), patient, contender.label(), trace));
            }
            Trace told = LimitSimulation.run(paused.scenario(), patient, new ToldTheCapacity(paused.scenario()), SEED,
                    List.of(paused.pause()));
            bursts.add(BurstResult.of(paused.scenario(), patient, ToldTheCapacity.LABEL, told));
        }
        String durations = (shorten == 1) ? "Loads run 60 s and are measured from 10 s; capacity steps at 30 s and "
                + "60 s of one 90 s run, each phase measured whole; the overload runs 10 minutes, measured from 1 min."
                : "Every duration divided by " + shorten + ".";
        return new AdaptiveResults(callee.describe(CAPACITY), durations, results, bursts, callee.rejectsWhenFull());
    }

    /** Every contender in every scenario against the standard callee (200 workers, 300 ms). */
    public static AdaptiveResults run(int shorten) {
        return run(shorten, CalleeModel.standard());
    }

    /**
     * The sample's scenarios, all calls at once: its default (1,000 calls), one that runs long enough to settle
     * (4,000), and its capacity change (4,000 calls, the workers halving at 2 s and coming back at 6 s).
     */
    static List<Scenario> bursts() {
        Duration minute = Duration.ofSeconds(60);
        return List.of(Scenario.burst(1000, CAPACITY, minute), Scenario.burst(4000, CAPACITY, minute),
                Scenario.burst("4,000 calls at once, capacity 200 → 100 at 2 s → 200 at 6 s", 4000, CAPACITY,
                        List.of(new Scenario.CapacityStep(Duration.ofSeconds(2), CAPACITY / 2),
                                new Scenario.CapacityStep(Duration.ofSeconds(6), CAPACITY)),
                        minute));
    }

    /**
     * Two of the sample's bursts with the caller's own process pausing for 350 ms: in the first round trip of the
     * 1,000 calls (as the sample's own heap-probe GC did, that long, in one run), and at 1 s into the 4,000 calls.
     */
    static List<CallerPause.Burst> pausedBursts() {
        Duration minute = Duration.ofSeconds(60);
        Duration pause = Duration.ofMillis(350);
        return List.of(
                new CallerPause.Burst(Scenario.burst("1,000 calls at once, the caller paused 350 ms at 0.3 s", 1000,
                        CAPACITY, List.of(), minute), new CallerPause(Duration.ofMillis(300), pause)),
                new CallerPause.Burst(Scenario.burst("4,000 calls at once, the caller paused 350 ms at 1 s", 4000,
                        CAPACITY, List.of(), minute), new CallerPause(Duration.ofSeconds(1), pause)));
    }

    /** The scenarios, every duration divided by {@code shorten}. */
    static List<Scenario> scenarios(int shorten) {
        int c = CAPACITY;
        List<Scenario> scenarios = new ArrayList<>();
        for (double load : new double[] { 0.5, 1, 2, 4 }) {
            scenarios.add(new Scenario(load(load) + "× load", load, c, List.of(), s(60, shorten), s(0, shorten),
                    s(10, shorten), s(60, shorten)));
        }
        List<Scenario.CapacityStep> steps = List.of(new Scenario.CapacityStep(s(30, shorten), c / 2),
                new Scenario.CapacityStep(s(60, shorten), c));
        scenarios.add(new Scenario("capacity 200 → 100 at 2× load", 2, c, steps, s(60, shorten), s(30, shorten),
                s(30, shorten), s(60, shorten)));
        scenarios.add(new Scenario("capacity 100 → 200 at 2× load", 2, c, steps, s(90, shorten), s(60, shorten),
                s(60, shorten), s(90, shorten)));
        scenarios.add(new Scenario("1.25× load for 10 min", 1.25, c, List.of(), s(600, shorten), s(0, shorten),
                s(60, shorten), s(600, shorten)));
        return scenarios;
    }

    private static Duration s(long seconds, int shorten) {
        return Duration.ofMillis(seconds * 1000 / shorten);
    }

    private static String load(double load) {
        return (load == Math.rint(load)) ? String.valueOf((int) load) : String.format(Locale.ROOT, "%.1f", load);
    }
}
