package io.github.loombulkhead.http;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.limit.DropClassifier;
import io.github.loombulkhead.limit.Outcome;

import org.springframework.http.HttpStatusCode;

/**
 * A permit held for one HTTP exchange; {@link #release()} gives it back exactly once. For an
 * adaptive bulkhead it also carries the exchange's sample: the round trip until the response
 * headers, and whether the callee was overloaded (a read or connect timeout, a refused connection,
 * {@code 503} or {@code 429}), answered, or was never reached.
 */
final class Permit {

    /** Sets {@code released} once, without an object of its own per exchange. */
    private static final VarHandle RELEASED;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(Permit.class, "released", int.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Bulkhead bulkhead;

    private final long start = System.nanoTime();

    private final int inflight;

    /** 1 once the permit went back; changed only through {@link #RELEASED}. */
    private volatile int released;

    private long rtt = -1;

    private Outcome outcome = Outcome.IGNORED;

    Permit(Bulkhead bulkhead) {
        this.bulkhead = bulkhead;
        this.inflight = bulkhead.callStarted();
    }

    /** Whether the exchange's outcome is wanted: its bulkhead is adaptive, and its permit's release takes a sample. */
    boolean isSampled() {
        return this.inflight >= 0;
    }

    /** The response headers arrived with {@code status}. */
    void answered(HttpStatusCode status) {
        this.rtt = System.nanoTime() - this.start;
        this.outcome = Outcome.ofStatus(status.value());
    }

    /**
     * The exchange failed before a response: a timeout or refused connection (as the exception or a cause, the
     * {@linkplain DropClassifier#ofDefaults() default drops}) is a drop; a failure before anything was sent (an unknown
     * host, no pooled connection in time) or of an interrupted caller is no sample, and so is anything else.
     */
    void failed(Throwable failure) {
        this.rtt = System.nanoTime() - this.start;
        boolean overload = !Thread.currentThread().isInterrupted()
                && DropClassifier.ofDefaults().classify(failure) == Outcome.DROPPED;
        this.outcome = overload ? Outcome.DROPPED : Outcome.IGNORED;
    }

    /**
     * Reading the body failed after the headers arrived: as {@link #failed}, so a read timeout is a drop and anything
     * else no sample, except that a drop the headers told ({@code 503}, {@code 429}) stays one.
     */
    void bodyFailed(Throwable failure) {
        if (this.outcome != Outcome.DROPPED) {
            failed(failure);
        }
    }

    void release() {
        if (RELEASED.compareAndSet(this, 0, 1)) {
            long held = System.nanoTime() - this.start;
            this.bulkhead.onComplete(held, (this.rtt >= 0) ? this.rtt : held, this.inflight, this.outcome);
        }
    }
}
