package io.github.loombulkhead.autoconfigure.server;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.Waiter;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;

/**
 * The permit of one request: a {@link Waiter} while the request waits in async mode without a thread, then the
 * {@link AsyncListener} that gives the permit back, exactly once, when the response completes. It follows the
 * request through every asynchronous cycle (async controllers, streaming) by re-registering itself.
 *
 * <p>{@code WAITING -> GRANTED -> RUNNING -> DONE}; {@code WAITING -> DONE} when rejected or withdrawn;
 * {@code GRANTED -> DONE} when the request ended before its dispatch ran. A request that got a permit at once
 * starts in {@code RUNNING}.
 */
final class RequestPermit extends Waiter implements AsyncListener {

    private static final int WAITING = 0;

    private static final int GRANTED = 1;

    private static final int RUNNING = 2;

    private static final int DONE = 3;

    private final Bulkhead bulkhead;

    private final AtomicInteger state;

    private final AsyncContext waiting;

    private final Consumer<BulkheadRejectedException> timedOut;

    private final Runnable withdrawn;

    private volatile long startNanos;

    private RequestPermit(Bulkhead bulkhead, int state, AsyncContext waiting,
            Consumer<BulkheadRejectedException> timedOut, Runnable withdrawn) {
        this.bulkhead = bulkhead;
        this.state = new AtomicInteger(state);
        this.waiting = waiting;
        this.timedOut = timedOut;
        this.withdrawn = withdrawn;
        this.startNanos = System.nanoTime();
    }

    /** A permit taken at once; the request runs on its own thread now. */
    static RequestPermit running(Bulkhead bulkhead) {
        return new RequestPermit(bulkhead, RUNNING, null, null, null);
    }

    /**
     * A request in async mode about to wait for a permit.
     * @param timedOut tells the client, on a container thread, that the bulkhead rejected the waiting request
     * @param withdrawn runs when the request left the queue because it ended (the client went away)
     */
    static RequestPermit waiting(Bulkhead bulkhead, AsyncContext waiting,
            Consumer<BulkheadRejectedException> timedOut, Runnable withdrawn) {
        RequestPermit permit = new RequestPermit(bulkhead, WAITING, waiting, timedOut, withdrawn);
        waiting.addListener(permit);
        return permit;
    }

    Bulkhead bulkhead() {
        return this.bulkhead;
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
            return true;
        }
        return false;
    }

    /** The request was rejected while it tried to wait; nothing is to be released. */
    void rejected() {
        this.state.set(DONE);
    }

    /** Gives the permit back if this request still holds it; later calls do nothing. */
    void release() {
        int previous = this.state.getAndSet(DONE);
        if (previous == RUNNING) {
            this.bulkhead.onComplete(System.nanoTime() - this.startNanos);
        }
        else if (previous == GRANTED) {
            // Dispatched, but the request ended before it ran.
            this.bulkhead.releasePermit();
        }
    }

    @Override
    protected boolean onPermit(long waitNanos) {
        if (!this.state.compareAndSet(WAITING, GRANTED)) {
            return false;
        }
        try {
            this.waiting.dispatch();
            return true;
        }
        catch (IllegalStateException ex) {
            // The request ended (error, client gone) between the check and the dispatch.
            this.state.set(DONE);
            return false;
        }
    }

    @Override
    protected void onReject(BulkheadRejectedException rejection) {
        if (this.state.compareAndSet(WAITING, DONE)) {
            this.waiting.start(() -> this.timedOut.accept(rejection));
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {
        if (!withdraw()) {
            release();
        }
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        withdraw();
    }

    @Override
    public void onError(AsyncEvent event) {
        withdraw();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // A new asynchronous cycle (an async controller, a streaming body): keep following the request.
        event.getAsyncContext().addListener(this);
    }

    /** Leaves the queue if still waiting: the request ended before it got a permit. */
    private boolean withdraw() {
        if (this.state.get() == WAITING && this.bulkhead.withdraw(this)) {
            this.state.set(DONE);
            this.withdrawn.run();
            return true;
        }
        return false;
    }
}
