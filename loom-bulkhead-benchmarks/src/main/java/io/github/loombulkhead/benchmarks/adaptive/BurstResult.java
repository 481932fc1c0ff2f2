package io.github.loombulkhead.benchmarks.adaptive;

/**
 * One algorithm finishing a burst of calls that all arrive at once: when the last one finished, against the
 * Little's-law bound (calls / capacity × service time, piecewise when the capacity changes), and how many succeeded.
 */
public record BurstResult(String scenario, String contender, int calls, double seconds, double boundSeconds,
        long succeeded, long dropped, long rejected) {

    static BurstResult of(Scenario scenario, CalleeModel callee, String contender, Trace trace) {
        long last = 0;
        long succeeded = 0;
        for (int i = 0; i < trace.calls; i++) {
            last = Math.max(last, trace.ends[i]);
            if (trace.succeeded[i]) {
                succeeded++;
            }
        }
        return new BurstResult(scenario.name(), contender, scenario.burst(), last / 1e9,
                scenario.burstBoundSeconds(callee.serviceTime()), succeeded, trace.calls - succeeded, trace.rejected);
    }
}
