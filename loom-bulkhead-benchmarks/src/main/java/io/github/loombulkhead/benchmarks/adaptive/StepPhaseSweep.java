package io.github.loombulkhead.benchmarks.adaptive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.DoubleSummaryStatistics;
import java.util.List;
import java.util.Locale;

/**
 * The simulation's capacity changes at many moments instead of one. Under overload an adaptive limit moves in a cycle
 * of a few seconds (it probes up, sees the queue, falls below the knee), and with a callee whose service time barely
 * varies the cycle repeats almost exactly: a change at one fixed time then meets every seed at nearly the same point of
 * it, and a table of one change time compares where the cycles happen to be, not the algorithms. Here each change runs
 * at {@code --times} moments, each with its own seed, and the table gives the mean and the worst:
 * <ul>
 * <li>the capacity 200 → 100 and back at 2× load, the change anywhere within ten service times from 30 s (at least
 * one whole cycle of {@code gradient}'s limit, about 2.5 s at this callee), each phase measured whole for 30 s, as in
 * the main table;
 * <li>the sample's halving (4,000 calls at once, 200 → 100 and back 4 s later), the halving anywhere within five service
 * times from 1.5 s: where the start's climb is when it comes.
 * </ul>
 *
 * <pre>
 * java -cp benchmarks.jar io.github.loombulkhead.benchmarks.adaptive.StepPhaseSweep [--spread=SIGMA] [--timeout-ms=MS]
 *     [--times=N]
 * </pre>
 */
public final class StepPhaseSweep {

    /** How many change times each scenario runs at, unless {@code --times} says. */
    static final int DEFAULT_TIMES = 20;

    private static final int CAPACITY = AdaptiveLimitSimulation.CAPACITY;

    private static final Duration PHASE = Duration.ofSeconds(30);

    private StepPhaseSweep() {
    }

    public static void main(String[] args) {
        CalleeModel callee = CalleeModel.standard();
        int times = DEFAULT_TIMES;
        for (String arg : args) {
            if (arg.startsWith("--spread=")) {
                callee = callee.withServiceSpread(AdaptiveLimitSimulation.spread(arg.substring("--spread=".length())));
            }
            else if (arg.startsWith("--timeout-ms=")) {
                callee = callee.withReadTimeout(Duration.ofMillis(
                        AdaptiveLimitSimulation.timeoutMillis(arg.substring("--timeout-ms=".length()))));
            }
            else if (arg.startsWith("--times=")) {
                times = times(arg.substring("--times=".length()));
            }
            else {
                throw new IllegalArgumentException(
                        "Unknown option '" + arg + "'; use --spread=SIGMA, --timeout-ms=MS, --times=N");
            }
        }
        System.out.println(render(callee.describe(CAPACITY), times, run(callee, times)));
    }

    /** The number of change times {@code --times} gives: a whole number from 1 to 1,000. */
    static int times(String value) {
        long times = AdaptiveLimitSimulation.wholeNumberOr(value, 0);
        if (times < 1 || times > 1000) {
            throw new IllegalArgumentException("--times=" + value + ": the number of moments each capacity change runs "
                    + "at must be a whole number from 1 to 1000, such as --times=20");
        }
        return (int) times;
    }

    /** {@code times} moments from {@code first}, evenly spread over {@code span}. */
    static List<Duration> moments(Duration first, Duration span, int times) {
        List<Duration> moments = new ArrayList<>(times);
        for (int k = 0; k < times; k++) {
            moments.add(first.plus(span.multipliedBy(k).dividedBy(times)));
        }
        return moments;
    }

    /** Every contender through every change at {@code times} moments against {@code callee}. */
    static List<Row> run(CalleeModel callee, int times) {
        Duration service = callee.serviceTime();
        List<Duration> steps = moments(PHASE, service.multipliedBy(10), times);
        List<Duration> halvings = moments(Duration.ofMillis(1500), service.multipliedBy(5), times);
        CalleeModel patient = callee.withMaxWait(Duration.ofSeconds(60));
        List<Row> rows = new ArrayList<>();
        for (Contender contender : Contender.values()) {
            Stats down = new Stats();
            Stats up = new Stats();
            Stats halving = new Stats();
            for (int k = 0; k < times; k++) {
                long seed = AdaptiveLimitSimulation.SEED + k;
                Duration at = steps.get(k);
                Duration back = at.plus(PHASE);
                List<Scenario.CapacityStep> change = List.of(new Scenario.CapacityStep(at, CAPACITY / 2),
                        new Scenario.CapacityStep(back, CAPACITY));
                steady(down, new Scenario("capacity 200 → 100", 2, CAPACITY, change, back, at, at, back), callee,
                        contender, seed);
                steady(up, new Scenario("capacity 100 → 200", 2, CAPACITY, change, back.plus(PHASE), back, back,
                        back.plus(PHASE)), callee, contender, seed);
                Duration halved = halvings.get(k);
                Scenario burst = Scenario.burst("halving", 4000, CAPACITY,
                        List.of(new Scenario.CapacityStep(halved, CAPACITY / 2),
                                new Scenario.CapacityStep(halved.plusSeconds(4), CAPACITY)),
                        Duration.ofSeconds(60));
                Trace trace = LimitSimulation.run(burst, patient, contender.create(callee.ceiling(), seed), seed);
                BurstResult result = BurstResult.of(burst, patient, contender.label(), trace);
                halving.add(result.dropped(), result.isDone() ? result.seconds() : Double.POSITIVE_INFINITY);
            }
            rows.add(new Row(contender.label(), down, up, halving));
        }
        return rows;
    }

    /** Adds the goodput and the timeouts of {@code scenario}'s reported phase to {@code stats}. */
    private static void steady(Stats stats, Scenario scenario, CalleeModel callee, Contender contender, long seed) {
        Trace trace = LimitSimulation.run(scenario, callee, contender.create(callee.ceiling(), seed), seed);
        SimulationResult result = Metrics.of(scenario, callee, contender, trace);
        stats.add(result.goodput(), result.timeouts());
    }

    static String render(String callee, int times, List<Row> rows) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "_Callee: %s. Each change at %d moments, each with its own seed "
                + "(from %d): the mean over them, and the worst._%n%n", callee, times, AdaptiveLimitSimulation.SEED));
        out.append("| algorithm | capacity 200 → 100 at 2× load: goodput (worst) | timed out at the drop (most) "
                + "| capacity 100 → 200: goodput (worst) | sample's halving: timed out (most) | all done after (longest) |\n");
        out.append("|---|---:|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            String name = row.contender().startsWith("loom") ? "**" + row.contender() + "**" : row.contender();
            out.append(String.format(Locale.ROOT, "| %s | %.3f (%.3f) | %,.0f (%,.0f) | %.3f (%.3f) | %,.0f (%,.0f) "
                    + "| %s (%s) |%n", name, row.down().first().getAverage(), row.down().first().getMin(),
                    row.down().second().getAverage(), row.down().second().getMax(), row.up().first().getAverage(),
                    row.up().first().getMin(), row.halving().first().getAverage(), row.halving().first().getMax(),
                    seconds(row.halving().second().getAverage()), seconds(row.halving().second().getMax())));
        }
        return out.toString();
    }

    private static String seconds(double seconds) {
        return Double.isInfinite(seconds) ? "not done" : String.format(Locale.ROOT, "%.2f s", seconds);
    }

    /** One contender's results: goodput and timeouts of the two steady changes, timeouts and duration of the burst. */
    record Row(String contender, Stats down, Stats up, Stats halving) {
    }

    /** Two values per moment (goodput and timeouts, or timeouts and seconds): their counts, means, lowest, highest. */
    record Stats(DoubleSummaryStatistics first, DoubleSummaryStatistics second) {

        Stats() {
            this(new DoubleSummaryStatistics(), new DoubleSummaryStatistics());
        }

        void add(double first, double second) {
            this.first.accept(first);
            this.second.accept(second);
        }
    }
}
