package io.github.loombulkhead.benchmarks.adaptive;

/**
 * One algorithm finishing a burst of calls that all arrive at once: when the last one finished, against the
 * Little's-law bound (calls / capacity × service time, piecewise when the capacity changes), how many succeeded, and
 * how many never ran: rejected after the maximum wait, or still waiting when the run ended ({@code unfinished}; then
 * {@code seconds} is the run's length and the burst was not done).
 */
public record BurstResult(String scenario, String contender, int calls, double seconds, double boundSeconds,
        long succeeded, long dropped, long rejected, long unfinished) {

    static BurstResult of(Scenario scenario, CalleeModel callee, String contender, Trace trace) {
        long last = 0;
        long succeeded = 0;
        for (int i = 0; i < trace.calls; i++) {
            last = Math.max(last, trace.ends[i]);
            if (trace.succeeded[i]) {
                succeeded++;
            }
        }
        long unfinished = scenario.burst() - trace.calls - trace.rejected;
        double seconds = ((unfinished > 0) ? scenario.duration().toNanos() : last) / 1e9;
        return new BurstResult(scenario.name(), contender, scenario.burst(), seconds,
                scenario.burstBoundSeconds(callee.serviceTime()), succeeded, trace.calls - succeeded, trace.rejected,
                unfinished);
    }

    /** Whether every call ran to its end or was rejected before the run ended. */
    public boolean isDone() {
        return this.unfinished == 0;
    }
}
