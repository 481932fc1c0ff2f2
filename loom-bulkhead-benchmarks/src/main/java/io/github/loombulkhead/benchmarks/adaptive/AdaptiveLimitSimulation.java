package io.github.loombulkhead.benchmarks.adaptive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs every {@link Contender} through every scenario against the {@link CalleeModel#standard() standard callee}
 * (200 workers, 300 ms) and prints one Markdown table.
 *
 * <pre>
 * java -cp benchmarks.jar io.github.loombulkhead.benchmarks.adaptive.AdaptiveLimitSimulation [--short]
 * </pre>
 * {@code --short} divides every duration by ten (the 10-minute overload becomes one minute).
 */
public final class AdaptiveLimitSimulation {

    /** Seed of every run: the same arrivals and service times for every algorithm. */
    public static final long SEED = 20_261_121L;

    private AdaptiveLimitSimulation() {
    }

    public static void main(String[] args) {
        boolean quick = List.of(args).contains("--short");
        CalleeModel callee = CalleeModel.standard();
        for (String arg : args) {
            if (arg.startsWith("--spread=")) {
                callee = callee.withServiceSpread(Double.parseDouble(arg.substring("--spread=".length())));
            }
            if (arg.equals("--skip-abandoned")) {
                callee = callee.withServesAbandonedCalls(false);
            }
            if (arg.startsWith("--timeout-ms=")) {
                callee = callee.withReadTimeout(Duration.ofMillis(Long.parseLong(arg.substring("--timeout-ms=".length()))));
            }
        }
        List<SimulationResult> results = run(scenarios(quick ? 10 : 1), List.of(Contender.values()), callee);
        System.out.println(table(results));
        System.out.println(burstTable(runBursts(List.of(Contender.values()), callee)));
    }

    /** Every contender finishing 1,000 calls that arrive at once (the sample's default scenario), max wait 60 s. */
    static List<BurstResult> runBursts(List<Contender> contenders, CalleeModel callee) {
        CalleeModel patient = callee.withMaxWait(Duration.ofSeconds(60));
        Scenario burst = Scenario.burst(1000, 200, Duration.ofSeconds(60));
        List<BurstResult> results = new ArrayList<>();
        for (Contender contender : contenders) {
            Trace trace = LimitSimulation.run(burst, patient, contender.create(callee.ceiling(), SEED), SEED);
            results.add(BurstResult.of(burst, patient, contender, trace));
        }
        return results;
    }

    /** The burst results as a Markdown table. */
    public static String burstTable(List<BurstResult> results) {
        StringBuilder out = new StringBuilder();
        out.append("| algorithm | all done after | × Little's-law bound | succeeded | dropped |\n");
        out.append("|---|---:|---:|---:|---:|\n");
        for (BurstResult r : results) {
            out.append(String.format(Locale.ROOT, "| %s | %.2f s | %.2f× | %d | %d |%n", r.contender(), r.seconds(),
                    r.seconds() / r.boundSeconds(), r.succeeded(), r.dropped()));
        }
        return out.toString();
    }

    /** The scenarios, every duration divided by {@code shorten}. */
    public static List<Scenario> scenarios(int shorten) {
        int c = 200;
        List<Scenario> scenarios = new ArrayList<>();
        for (double load : new double[] { 0.5, 1, 2, 4 }) {
            scenarios.add(new Scenario(format(load) + "× load", load, c, List.of(), s(60, shorten), s(0, shorten),
                    s(10, shorten), s(60, shorten)));
        }
        List<Scenario.CapacityStep> steps = List.of(new Scenario.CapacityStep(s(30, shorten), c / 2),
                new Scenario.CapacityStep(s(60, shorten), c));
        scenarios.add(new Scenario("capacity 200 → 100, 2× load", 2, c, steps, s(60, shorten), s(30, shorten),
                s(30, shorten), s(60, shorten)));
        scenarios.add(new Scenario("capacity 100 → 200, 2× load", 2, c, steps, s(90, shorten), s(60, shorten),
                s(60, shorten), s(90, shorten)));
        scenarios.add(new Scenario("1.25× load for 10 min", 1.25, c, List.of(), s(600, shorten), s(0, shorten),
                s(60, shorten), s(600, shorten)));
        return scenarios;
    }

    private static Duration s(long seconds, int shorten) {
        return Duration.ofMillis(seconds * 1000 / shorten);
    }

    /** Every contender in every scenario, in that order. */
    static List<SimulationResult> run(List<Scenario> scenarios, List<Contender> contenders, CalleeModel callee) {
        List<SimulationResult> results = new ArrayList<>();
        for (Scenario scenario : scenarios) {
            for (Contender contender : contenders) {
                Trace trace = LimitSimulation.run(scenario, callee, contender.create(callee.ceiling(), SEED), SEED);
                results.add(Metrics.of(scenario, callee, contender, trace));
            }
        }
        return results;
    }

    /** The results as one Markdown table. */
    public static String table(List<SimulationResult> results) {
        StringBuilder out = new StringBuilder();
        out.append("| scenario | algorithm | goodput | p99 / unloaded p99 | settled in [C, 1.25 C] after | "
                + "limit σ / C | drift / C | mean limit | drops | rejected |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (SimulationResult r : results) {
            out.append("| ").append(r.scenario()).append(" | ").append(r.contender()).append(" | ")
                .append(String.format(Locale.ROOT, "%.3f", r.goodput())).append(" | ")
                .append(String.format(Locale.ROOT, "%.2f", r.p99Ratio())).append(" | ")
                .append(Double.isNaN(r.settleSeconds()) ? "never" : String.format(Locale.ROOT, "%.1f s", r.settleSeconds()))
                .append(" | ").append(String.format(Locale.ROOT, "%.3f", r.limitSpread())).append(" | ")
                .append(String.format(Locale.ROOT, "%+.3f", r.drift())).append(" | ")
                .append(String.format(Locale.ROOT, "%.0f", r.meanLimit())).append(" | ")
                .append(r.drops()).append(" | ").append(r.rejected()).append(" |\n");
        }
        return out.toString();
    }

    private static String format(double load) {
        return (load == Math.rint(load)) ? String.valueOf((int) load) : String.valueOf(load);
    }
}
