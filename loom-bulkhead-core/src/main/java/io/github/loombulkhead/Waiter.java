package io.github.loombulkhead;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A queued request for a permit that owns no thread, for integrations that must not block (an executor's
 * task, an asynchronous call). A waiter is offered to one bulkhead, once, with
 * {@link Bulkhead#acquireOrEnqueue(Waiter)}. Exactly one callback runs: {@link #onPermit} on the thread
 * that released the permit (or changed the limit), so it must be quick: start a thread, complete a
 * future; {@link #onReject} on a virtual thread of its own.
 */
public abstract class Waiter {

    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(Waiter.class, "owner", Bulkhead.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final boolean expires;

    /** The bulkhead it was offered to; set once. */
    private volatile Bulkhead owner;

    /** Guarded by the owner's lock, as is {@link #enqueuedAt}. */
    int status = WaitQueue.NEW;

    /** Arrival time, strictly increasing within a queue. */
    long enqueuedAt;

    /** A waiter the bulkhead rejects once it waited {@code maxWaitDuration}. */
    protected Waiter() {
        this(true);
    }

    /** {@code expires == false}: the queue never times it out (it times itself out, or never). */
    Waiter(boolean expires) {
        this.expires = expires;
    }

    /**
     * The permit is now held on behalf of this waiter, which must release it eventually.
     * @return {@code false} if the waiter cannot use it (its task was cancelled or could not start
     * and has been failed): the permit then passes to the next waiter. Never release it from here.
     */
    protected abstract boolean onPermit(long waitNanos);

    /** The waiter will never get a permit; the rejection is already counted. */
    protected abstract void onReject(BulkheadRejectedException rejection);

    /** The max wait changed: a waiter that times itself out re-reads it. */
    void maxWaitChanged() {
    }

    final boolean expires() {
        return this.expires;
    }

    /**
     * Whether a rejection reaches whoever waits (a caller, a future): an external limit withdraws only such waiters.
     * A task whose future the executor did not create cannot be told, so it keeps waiting.
     */
    boolean canBeRejected() {
        return true;
    }

    final boolean isOfferedTo(Bulkhead bulkhead) {
        return this.owner == bulkhead;
    }

    /** Binds it to {@code bulkhead}, once. */
    final void claim(Bulkhead bulkhead) {
        if (!OWNER.compareAndSet(this, (Bulkhead) null, bulkhead)) {
            throw new IllegalStateException("Waiter " + this + " was already offered to bulkhead '"
                    + this.owner.getName() + "'; create a new waiter for each call");
        }
    }
}
