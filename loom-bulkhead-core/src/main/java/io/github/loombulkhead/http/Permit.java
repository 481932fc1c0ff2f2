package io.github.loombulkhead.http;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.limit.Outcome;

import org.springframework.http.HttpStatusCode;

/**
 * A permit held for one HTTP exchange; {@link #release()} gives it back exactly once. For an
 * adaptive bulkhead it also carries the exchange's sample: the round trip until the response
 * headers, and whether the callee was overloaded (a read or connect timeout, a refused connection,
 * {@code 503} or {@code 429}), answered, or was never reached.
 */
final class Permit {

    private final Bulkhead bulkhead;

    private final long start = System.nanoTime();

    private final int inflight;

    private final AtomicBoolean released = new AtomicBoolean();

    private long rtt = -1;

    private Outcome outcome = Outcome.IGNORED;

    Permit(Bulkhead bulkhead) {
        this.bulkhead = bulkhead;
        this.inflight = bulkhead.isAdaptive() ? bulkhead.getActiveCount() : -1;
    }

    /** The response headers arrived with {@code status}. */
    void answered(HttpStatusCode status) {
        this.rtt = System.nanoTime() - this.start;
        this.outcome = Outcome.ofStatus(status.value());
    }

    /** The exchange failed before a response: a timeout or refused connection is a drop, anything else no sample. */
    void failed(Throwable failure) {
        this.rtt = System.nanoTime() - this.start;
        boolean overload = (failure instanceof InterruptedIOException || failure instanceof ConnectException)
                && !Thread.currentThread().isInterrupted();
        this.outcome = overload ? Outcome.DROPPED : Outcome.IGNORED;
    }

    void release() {
        if (this.released.compareAndSet(false, true)) {
            long held = System.nanoTime() - this.start;
            this.bulkhead.onComplete(held, (this.rtt >= 0) ? this.rtt : held, this.inflight, this.outcome);
        }
    }
}
