package io.github.loombulkhead.benchmarks.adaptive;

/**
 * One algorithm finishing a burst of calls that all arrive at once: when the last one finished, against the
 * Little's-law bound (calls / capacity × service time), and how many succeeded.
 */
public record BurstResult(String contender, int calls, double seconds, double boundSeconds, long succeeded,
        long dropped, long rejected) {

    static BurstResult of(Scenario scenario, CalleeModel callee, Contender contender, Trace trace) {
        long last = 0;
        long succeeded = 0;
        for (int i = 0; i < trace.calls; i++) {
            last = Math.max(last, trace.ends[i]);
            if (trace.succeeded[i]) {
                succeeded++;
            }
        }
        double bound = (double) scenario.burst() / scenario.workers() * callee.serviceTime().toNanos() / 1e9;
        return new BurstResult(contender.label(), scenario.burst(), last / 1e9, bound, succeeded,
                trace.calls - succeeded, trace.rejected);
    }
}
