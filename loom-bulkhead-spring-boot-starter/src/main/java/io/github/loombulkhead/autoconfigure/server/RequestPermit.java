package io.github.loombulkhead.autoconfigure.server;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.Waiter;
import io.github.loombulkhead.autoconfigure.server.WithdrawnRequests.Reason;
import io.github.loombulkhead.limit.Outcome;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The permit of one request: a {@link Waiter} while the request waits in async mode without a thread, then the
 * {@link AsyncListener} that gives the permit back, exactly once, when the response completes. It follows the
 * request through every asynchronous cycle (async controllers, streaming) by re-registering itself. An adaptive
 * bulkhead takes the request as one sample: its time holding the permit, and a drop when it failed with one of the
 * bulkhead's drop types or was answered {@code 503} or {@code 429}.
 *
 * <p>{@code WAITING -> GRANTED -> RUNNING -> DONE}; {@code WAITING -> DONE} when rejected or withdrawn;
 * {@code GRANTED -> DONE} when the request ended before its dispatch ran. A request that got a permit at once
 * starts in {@code RUNNING}. A check of the client's connection runs only in {@code WAITING}, and whoever moves
 * the request on waits until a running check is over.
 */
final class RequestPermit extends Waiter implements AsyncListener {

    private static final int WAITING = 0;

    private static final int GRANTED = 1;

    private static final int RUNNING = 2;

    private static final int DONE = 3;

    private final Bulkhead bulkhead;

    private final AtomicInteger state;

    private final AsyncContext waiting;

    private final Ending ending;

    /** The connection of a waiting request the {@link DisconnectCheck} checks; null if it is not checked. */
    private final ClientConnection connection;

    private final ReentrantLock checking = new ReentrantLock();

    private volatile long startNanos;

    private volatile int inflightAtStart = -1;

    /** What an asynchronous cycle of the running request failed with; null if nothing failed. */
    private volatile Throwable failure;

    private RequestPermit(Bulkhead bulkhead, int state, AsyncContext waiting, Ending ending,
            ClientConnection connection) {
        this.bulkhead = bulkhead;
        this.state = new AtomicInteger(state);
        this.waiting = waiting;
        this.ending = ending;
        this.connection = connection;
        this.startNanos = System.nanoTime();
        if (state == RUNNING) {
            countInflight();
        }
    }

    /** A permit taken at once; the request runs on its own thread now. */
    static RequestPermit running(Bulkhead bulkhead) {
        return new RequestPermit(bulkhead, RUNNING, null, null, null);
    }

    /**
     * A request in async mode about to wait for a permit.
     * @param ending what to do when the request ends without running
     * @param connection the client's connection to check while it waits; {@code null} if it cannot be checked
     */
    static RequestPermit waiting(Bulkhead bulkhead, AsyncContext waiting, Ending ending, ClientConnection connection) {
        RequestPermit permit = new RequestPermit(bulkhead, WAITING, waiting, ending, connection);
        waiting.addListener(permit);
        return permit;
    }

    Bulkhead bulkhead() {
        return this.bulkhead;
    }

    /** Whether the client's connection is checked while the request waits (its input stream was taken for it). */
    boolean isConnectionChecked() {
        return this.connection != null;
    }

    /** Whether the bulkhead granted the permit and dispatched the request, which has not run yet. */
    boolean isDispatched() {
        return this.state.get() == GRANTED;
    }

    /** The permit was taken at once although the request was put into async mode for the wait. */
    void grantedAtOnce() {
        if (this.state.compareAndSet(WAITING, GRANTED)) {
            this.waiting.dispatch();
        }
    }

    /** Marks the dispatched request as running; {@code false} if it ended meanwhile and must not run. */
    boolean start() {
        if (this.state.compareAndSet(GRANTED, RUNNING)) {
            this.startNanos = System.nanoTime();
            countInflight();
            return true;
        }
        return false;
    }

    /** The request was rejected while it tried to wait; nothing is to be released. */
    void rejected() {
        this.state.set(DONE);
    }

    private void countInflight() {
        this.inflightAtStart = this.bulkhead.callStarted();
    }

    /**
     * Gives the permit back if this request still holds it, with what its {@code response} and {@code failure}
     * (null if none) tell an adaptive bulkhead; later calls do nothing.
     */
    void release(ServletResponse response, Throwable failure) {
        int previous = this.state.getAndSet(DONE);
        if (previous == RUNNING) {
            long nanos = System.nanoTime() - this.startNanos;
            this.bulkhead.onComplete(nanos, nanos, this.inflightAtStart, outcomeOf(response, failure));
        }
        else if (previous == GRANTED) {
            // Dispatched, but the request ended before it ran.
            this.bulkhead.releasePermit();
        }
    }

    /**
     * Checks the client's connection of the waiting request, and withdraws the request when the client went away.
     * @return whether to check it again: {@code false} once it no longer waits
     */
    boolean checkConnection() {
        boolean closed;
        this.checking.lock();
        try {
            if (this.state.get() != WAITING) {
                return false;
            }
            closed = this.connection.isClosed();
        }
        finally {
            this.checking.unlock();
        }
        if (closed) {
            withdraw(Reason.CLIENT_DISCONNECTED);
        }
        return !closed;
    }

    @Override
    protected boolean onPermit(long waitNanos) {
        if (!this.state.compareAndSet(WAITING, GRANTED)) {
            // Only release() moves a waiting request on without taking it out of the queue: it ended as the queue
            // chose it for this permit, which now passes on. It left without running.
            this.ending.withdrawn(Reason.REQUEST_ENDED);
            return false;
        }
        awaitCheck();
        try {
            this.waiting.dispatch();
            return true;
        }
        catch (RuntimeException ex) {
            // The request ended (error, client gone) between the check and the dispatch: the servlet API says
            // IllegalStateException, a container that recycled the context meanwhile may throw something else. If its
            // end already gave the permit back (release saw GRANTED), the permit was used: it must not be passed on
            // a second time.
            if (this.state.compareAndSet(GRANTED, DONE)) {
                // It left without running, and its end will find it done: counted here, once.
                this.ending.withdrawn(Reason.REQUEST_ENDED);
                return false;
            }
            return true;
        }
    }

    @Override
    protected void onReject(BulkheadRejectedException rejection) {
        if (this.state.compareAndSet(WAITING, DONE)) {
            awaitCheck();
            this.waiting.start(() -> this.ending.rejected(rejection));
        }
    }

    private Outcome outcomeOf(ServletResponse response, Throwable failure) {
        if (failure != null) {
            return this.bulkhead.outcomeOf(failure);
        }
        return (response instanceof HttpServletResponse http) ? Outcome.ofStatus(http.getStatus()) : Outcome.SUCCESS;
    }

    @Override
    public void onComplete(AsyncEvent event) {
        awaitCheck();
        if (!withdraw(Reason.REQUEST_ENDED)) {
            release(event.getSuppliedResponse(), this.failure);
        }
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        awaitCheck();
        withdraw(Reason.REQUEST_ENDED);
    }

    @Override
    public void onError(AsyncEvent event) {
        awaitCheck();
        if (!withdraw(Reason.REQUEST_ENDED) && event.getThrowable() != null) {
            this.failure = event.getThrowable();
        }
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // A new asynchronous cycle (an async controller, a streaming body): keep following the request.
        event.getAsyncContext().addListener(this);
    }

    /** Leaves the queue if still waiting: the request ended before it got a permit. */
    private boolean withdraw(Reason reason) {
        if (this.state.get() == WAITING && this.bulkhead.withdraw(this)) {
            this.state.set(DONE);
            this.ending.withdrawn(reason);
            return true;
        }
        return false;
    }

    /** Returns once a check of the connection that runs now is over; the request's objects are then free. */
    private void awaitCheck() {
        if (this.connection != null) {
            this.checking.lock();
            this.checking.unlock();
        }
    }

    /** How a waiting request ends when it does not run. */
    interface Ending {

        /** On a container thread: the bulkhead refused the waiting request, which must now be answered. */
        void rejected(BulkheadRejectedException rejection);

        /**
         * The request left the queue and will not run. For {@link Reason#CLIENT_DISCONNECTED} it is still open and
         * must be ended; for {@link Reason#REQUEST_ENDED} the container is ending it.
         */
        void withdrawn(Reason reason);
    }
}
