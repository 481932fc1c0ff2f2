package io.github.loombulkhead.http;

import java.io.InterruptedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Set;

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

    /** Failures of an exchange that never left the caller: no sample, whatever the exception around them. */
    private static final Set<String> NOT_SENT = Set.of("org.apache.hc.core5.http.ConnectionRequestTimeoutException");

    /** Timeouts by name, for clients that may be absent: the JDK client's read and connect timeouts. */
    private static final Set<String> TIMEOUTS = Set.of("java.net.http.HttpTimeoutException");

    /** How deep the cause chain is searched. */
    private static final int MAX_CAUSES = 16;

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
     * The exchange failed before a response: a timeout or refused connection (as the exception or a cause) is a
     * drop; a failure before anything was sent (an unknown host, no pooled connection in time) or of an interrupted
     * caller is no sample, and so is anything else.
     */
    void failed(Throwable failure) {
        this.rtt = System.nanoTime() - this.start;
        boolean overload = !Thread.currentThread().isInterrupted() && !neverSent(failure) && isOverload(failure);
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

    private static boolean neverSent(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < MAX_CAUSES; t = t.getCause(), depth++) {
            if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException
                    || isNamed(t, NOT_SENT)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isOverload(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < MAX_CAUSES; t = t.getCause(), depth++) {
            if (t instanceof InterruptedIOException || t instanceof ConnectException || isNamed(t, TIMEOUTS)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code failure}'s class or one of its superclasses has one of {@code names}. */
    private static boolean isNamed(Throwable failure, Set<String> names) {
        for (Class<?> type = failure.getClass(); type != null; type = type.getSuperclass()) {
            if (names.contains(type.getName())) {
                return true;
            }
        }
        return false;
    }

    void release() {
        if (RELEASED.compareAndSet(this, 0, 1)) {
            long held = System.nanoTime() - this.start;
            this.bulkhead.onComplete(held, (this.rtt >= 0) ? this.rtt : held, this.inflight, this.outcome);
        }
    }
}
