package io.github.loombulkhead.autoconfigure.server;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Checks the connections of the waiting requests, every interval, on one virtual thread that parks while no
 * request waits. A request is checked from the first interval after it started to wait until it leaves the queue.
 */
final class DisconnectCheck implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(DisconnectCheck.class);

    private final long intervalNanos;

    private final Set<RequestPermit> waiting = ConcurrentHashMap.newKeySet();

    private final Thread thread;

    private volatile boolean closed;

    /** @param interval time between two checks of the waiting requests; positive */
    DisconnectCheck(Duration interval) {
        this.intervalNanos = interval.toNanos();
        this.thread = Thread.ofVirtual()
            .name("loom-bulkhead-server-disconnect-check")
            .inheritInheritableThreadLocals(false)
            .unstarted(this::run);
        this.thread.start();
    }

    /** Checks {@code permit} until it leaves the queue. */
    void watch(RequestPermit permit) {
        if (this.waiting.add(permit)) {
            LockSupport.unpark(this.thread);
        }
    }

    /** Stops checking {@code permit}: it left the queue. */
    void forget(RequestPermit permit) {
        this.waiting.remove(permit);
    }

    /** Requests checked now. */
    int size() {
        return this.waiting.size();
    }

    private void run() {
        while (!this.closed) {
            if (this.waiting.isEmpty()) {
                LockSupport.park(this);
                continue;
            }
            // Until the interval is over: every new waiting request unparks this thread, and a queue that grows must
            // not turn the checks of all waiting requests into one round per arrival.
            long deadline = System.nanoTime() + this.intervalNanos;
            for (long left = this.intervalNanos; left > 0 && !this.closed; left = deadline - System.nanoTime()) {
                LockSupport.parkNanos(this, left);
            }
            if (this.closed) {
                return;
            }
            for (RequestPermit permit : this.waiting) {
                if (!check(permit)) {
                    this.waiting.remove(permit);
                }
            }
        }
    }

    private static boolean check(RequestPermit permit) {
        try {
            return permit.checkConnection();
        }
        catch (RuntimeException ex) {
            logger.debug("Stopped checking the connection of a waiting request", ex);
            return false;
        }
        catch (Error ex) {
            // A bug where the request is withdrawn must not end the checks of every other waiting request.
            logger.warn("Stopped checking the connection of a waiting request; the checks of the others go on", ex);
            return false;
        }
    }

    @Override
    public void close() {
        this.closed = true;
        LockSupport.unpark(this.thread);
    }
}
