package io.github.loombulkhead.limit;

/**
 * Drives an algorithm the way a callee whose queue fills with calls their callers gave up on does: every call fails.
 * Calls take {@link #S}, one no-load RTT in virtual time.
 */
final class AbandonedQueue {

    static final long S = 100_000_000;

    /** When the collapse that {@link #collapse} leads to is made: the end of the call that made it due. */
    static final long COLLAPSED_AT = 24 + S;

    private AbandonedQueue() {
    }

    /**
     * From a limit of 100: {@code firstDrops} calls sent at 0 fail (one decrease, to 50), then 25 calls sent before that
     * decrease fail (a collapse, to 12.5), then 100 more sent before it fail too.
     */
    static void collapse(LimitAlgorithm algorithm, int firstDrops) {
        for (int i = 0; i < firstDrops; i++) {
            algorithm.onSample(0, S, 100, Outcome.DROPPED);
        }
        for (int i = 0; i < 25; i++) {
            algorithm.onSample(i, S, 100, Outcome.DROPPED);
        }
        sentBeforeFail(algorithm, S);
    }

    /** 100 calls sent before the collapse fail after {@code rttNanos}. */
    static void sentBeforeFail(LimitAlgorithm algorithm, long rttNanos) {
        for (int i = 0; i < 100; i++) {
            algorithm.onSample(25 + i, rttNanos, 100, Outcome.DROPPED);
        }
    }

    /** The first call sent after the collapse fails: it waited behind the calls the collapse is for. */
    static void firstSentAfterFails(LimitAlgorithm algorithm) {
        algorithm.onSample(COLLAPSED_AT + 1, S, 12, Outcome.DROPPED);
    }
}
