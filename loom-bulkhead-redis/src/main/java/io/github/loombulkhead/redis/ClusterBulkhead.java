package io.github.loombulkhead.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadListener;
import io.github.loombulkhead.ExternalLimit;
import io.github.loombulkhead.RejectionReason;

/**
 * One bulkhead whose {@code maxConcurrentCalls} bounds all processes that use its name against one Redis. The local
 * bulkhead keeps its thread-less FIFO queue; its limit is the number of leases this process holds. One platform thread
 * per bulkhead, the <em>governor</em>, brings them in line with local demand (calls active + waiting) in one script
 * call: it gives back leases nobody uses, asks for what waiters need, and renews the rest, so Redis sees one request
 * per process, never one per waiting call. A call that queues while the process holds no lease sends that script
 * itself, without waiting (the reply grants the lease on the Redis client's I/O thread), which saves waking the governor
 * twice; one script call of a bulkhead is under way at a time, whoever sent it.
 *
 * <p>When other processes wait, a process keeps at most its fair share (the limit divided by the processes that hold
 * or want permits, rounded down) and asks for one permit more: the permits above the shares go to the waiting
 * processes in turn, each for one turn ({@link #turnNanos()}: its calls pass the permit on among themselves, then it
 * goes back), so under equal demand each process gets the same part of the limit over time, also when there are more
 * processes than permits. Modes: {@code CLUSTER -> FALLBACK ->
 * CLUSTER} as Redis goes away and comes back; see {@link ClusterFallback}.
 */
public final class ClusterBulkhead implements AutoCloseable {

    private static final System.Logger logger = System.getLogger(ClusterBulkhead.class.getName());

    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** A turn with the permit above the fair share lasts this many round trips to Redis, within the bounds below. */
    private static final int TURN_ROUND_TRIPS = 20;

    private static final long MIN_TURN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private static final long MAX_TURN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Bulkhead bulkhead;

    private final ClusterConfig config;

    private final RedisLeases leases;

    private final ClusterListener listener;

    private final ExternalLimit external;

    /** Hears the bulkhead's completed calls; removed at close. */
    private final BulkheadListener activity;

    /** Closed, leases given back: every waiting call is rejected. */
    private volatile boolean handedBack;

    private final Thread governor;

    /** How long idle leases stay while no other process waits. */
    private final long lingerNanos;

    private final AtomicBoolean signalled = new AtomicBoolean();

    /** A script call of this bulkhead is under way (the governor's, or a caller's asking for its first lease). */
    private final AtomicBoolean calling = new AtomicBoolean();

    /** The governor found a caller's script call under way: the reply wakes it. */
    private final AtomicBoolean deferred = new AtomicBoolean();

    /** Another process released or the limit changed: sync even if nothing changed here. */
    private final AtomicBoolean remote = new AtomicBoolean();

    /** A limit written here, to be stored in Redis; 0 when none. */
    private final AtomicInteger limitToStore = new AtomicInteger();

    /** The thread showing a limit read from Redis as the bulkhead's ceiling: that change is not stored again. */
    private volatile Thread applying;

    private final LongAdder renewals = new LongAdder();

    private final LongAdder errors = new LongAdder();

    private volatile boolean closed;

    private volatile ClusterMode mode = ClusterMode.CLUSTER;

    /** Leases this process holds as far as it knows (0 in fallback); written by the governor only. */
    private volatile int held;

    /** The last reply from Redis; null before the first one. */
    private volatile LeaseState state;

    /** The cluster-wide limit as last known. */
    private volatile int limit;

    /** The limit was read from Redis once: callers may send a script themselves. */
    private volatile boolean initialized;

    /** Until when the process keeps to its share from before Redis went away. */
    private volatile long settleUntil;

    /**
     * Until when the leases held are surely still the process's: from the send time of the sync that last renewed
     * them (Redis counts the lease from when it ran the script, which is later), see {@link #leasedUntil(long)}.
     * After it, Redis may have handed them to others.
     */
    private volatile long leasedUntil;

    /** When a call last queued or completed: idle leases linger from then. */
    private volatile long lastBusy;

    /** The most calls running or waiting at a completion since the governor last looked (the ended one included). */
    private final AtomicInteger busiestSinceStep = new AtomicInteger();

    /** Calls running or waiting lately; used only by whoever holds {@link #calling}. */
    private final RecentPeak recentPeak;

    /**
     * Whether this process holds a permit above its fair share while others wait; written by whoever holds
     * {@link #calling}. Its turn with it ends at {@link #turnUntil}.
     */
    private volatile boolean turn;

    /** When the turn with the permit above the fair share ends ({@code System.nanoTime()}); only while {@link #turn}. */
    private volatile long turnUntil;

    /** The round trip of a script call, averaged over the last few; 0 before the first one. */
    private volatile long roundTripNanos;

    // Governor thread only.

    private long lastSync;

    private int lastWant;

    private long fallbackSince;

    /** The permits leased when Redis went away: the most used in fallback during the first lease. */
    private int leasedAtFailure;

    /** The local share when Redis went away, from the processes seen alive before: used until one lease after it is back. */
    private int shareAtFailure = Integer.MAX_VALUE;

    ClusterBulkhead(Bulkhead bulkhead, ClusterConfig config, RedisLeases leases, ClusterListener listener) {
        this.bulkhead = bulkhead;
        this.config = config;
        this.leases = leases;
        this.listener = listener;
        this.limit = bulkhead.getConfig().getMaxConcurrentCalls();
        this.external = ExternalLimit.attach(bulkhead, new Owner());
        this.activity = new BulkheadListener() {
            @Override
            public void onCompleted(Bulkhead completed, long executionNanos) {
                ClusterBulkhead.this.lastBusy = System.nanoTime();
                int busy = ClusterBulkhead.this.external.active() + ClusterBulkhead.this.external.waiting() + 1;
                if (busy > ClusterBulkhead.this.busiestSinceStep.get()) {
                    ClusterBulkhead.this.busiestSinceStep.accumulateAndGet(busy, Math::max);
                }
                signal();
            }
        };
        bulkhead.addListener(this.activity);
        this.lastSync = System.nanoTime() - config.renewPeriod().toNanos();
        this.lingerNanos = config.getIdleLinger().toNanos();
        this.lastBusy = System.nanoTime() - this.lingerNanos;
        this.recentPeak = new RecentPeak(this.lingerNanos, System.nanoTime());
        // A platform thread: the operating system schedules it also while CPU-bound virtual threads hold every carrier
        // thread (they are not preempted), so the leases are renewed, or given up, in time.
        this.governor = Thread.ofPlatform()
            .daemon()
            .name("loom-bulkhead-cluster-" + bulkhead.getName())
            .inheritInheritableThreadLocals(false)
            .unstarted(this::govern);
    }

    void start() {
        this.governor.start();
    }

    /** Gives the bulkhead its own limit back, never having started: it was attached in vain. */
    void discard() {
        this.bulkhead.removeListener(this.activity);
        this.external.detach();
    }

    public Bulkhead getBulkhead() {
        return this.bulkhead;
    }

    public String getName() {
        return this.bulkhead.getName();
    }

    public ClusterConfig getConfig() {
        return this.config;
    }

    /** The process's id in Redis. */
    public String getProcessId() {
        return this.leases.process();
    }

    public ClusterMode getMode() {
        return this.mode;
    }

    /** Leases this process holds (0 in fallback, where the local limit is not leased). */
    public int getHeldPermits() {
        return this.held;
    }

    /** The cluster-wide limit ({@code maxConcurrentCalls} shared by all processes) as last known. */
    public int getLimit() {
        return this.limit;
    }

    /** Permits held by all processes at the last sync; -1 before the first one. */
    public int getClusterInFlight() {
        LeaseState last = this.state;
        return (last != null) ? last.clusterHeld() : -1;
    }

    /** Processes renewing leases for this bulkhead at the last sync; 0 before the first one. */
    public int getProcessCount() {
        LeaseState last = this.state;
        return (last != null) ? last.processes() : 0;
    }

    /** Successful syncs with Redis, each renewing every lease this process holds. */
    public long getRenewalCount() {
        return this.renewals.sum();
    }

    /** Syncs with Redis that failed. */
    public long getErrorCount() {
        return this.errors.sum();
    }

    /**
     * Changes the cluster-wide limit, for every process (they apply it at their next sync, woken at once). Also
     * reached through {@link Bulkhead#changeLimit(int)}.
     * @throws IllegalArgumentException if {@code newLimit} is below 1
     */
    public void changeLimit(int newLimit) {
        this.bulkhead.changeLimit(newLimit);
    }

    /**
     * Stops the governor and gives back the leases no call uses; the local limit stays at 0, calls that wait for a
     * lease then, or queue later, are rejected with reason {@code shut-down}.
     */
    @Override
    public void close() {
        stop();
        awaitStopped(System.nanoTime() + this.config.getLeaseDuration().toNanos());
    }

    /** Tells the governor to give back the leases and stop; returns at once. */
    void stop() {
        this.closed = true;
        LockSupport.unpark(this.governor);
    }

    /**
     * Waits until the governor has stopped, or until {@code deadlineNanos} ({@code System.nanoTime()}): a governor
     * still waiting for Redis then is left to finish on its own, its leases expire in Redis anyway.
     */
    void awaitStopped(long deadlineNanos) {
        long remaining = deadlineNanos - System.nanoTime();
        if (remaining <= 0) {
            return;
        }
        try {
            this.governor.join(Duration.ofNanos(remaining));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    void remoteSignal(String message) {
        if (message.startsWith("wanted:")) {
            if (message.equals("wanted:" + this.leases.process())) {
                // Its own: the reply of the sync that queued it told all there is (a process giving back the permit
                // above its share after its turn queues again, and would sync once more for nothing).
                return;
            }
            // A process holding no lease has none to give back, unless a sync under way brings it some: that sync
            // may have run in Redis before the waiting process queued, and its reply would not say so. Read in this
            // order: a sync that ended has set what it holds.
            if (!this.calling.get() && this.held == 0) {
                return;
            }
        }
        LeaseState last = this.state;
        if (message.equals("freed") && !this.calling.get() && (last == null || last.othersWaiting() == 0)) {
            // Nobody waits any more: news only to a process held to its fair share because others waited.
            return;
        }
        if (message.startsWith("granted:") && !message.equals("granted:" + this.leases.process())) {
            return;
        }
        this.remote.set(true);
        signal();
    }

    private void signal() {
        if (!this.signalled.getAndSet(true)) {
            LockSupport.unpark(this.governor);
        }
    }

    private void govern() {
        while (!this.closed) {
            this.signalled.set(false);
            long waitNanos;
            if (this.calling.compareAndSet(false, true)) {
                try {
                    waitNanos = step(System.nanoTime());
                }
                catch (RuntimeException | Error ex) {
                    // Bad data (a limit below 1 written by hand) or a failing listener (an assertion too) must not end
                    // the governor: its leases would never be renewed, and other processes would hand them out again
                    // while its calls still run.
                    unexpected(ex);
                    waitNanos = POLL_NANOS;
                }
                finally {
                    this.calling.set(false);
                }
            }
            else {
                // A caller's script call is under way; its reply signals (looked at again in case it just ended).
                this.deferred.set(true);
                waitNanos = this.calling.get() ? POLL_NANOS : 0;
            }
            if (!this.signalled.get() && !this.closed) {
                LockSupport.parkNanos(this, waitNanos);
            }
        }
        try {
            leave();
        }
        finally {
            handBack();
        }
    }

    /** Gives back the leases at close, once no caller's script call is under way (waiting at most one lease). */
    private void leave() {
        long deadline = System.nanoTime() + this.config.getLeaseDuration().toNanos();
        while (!this.calling.compareAndSet(false, true)) {
            if (System.nanoTime() - deadline > 0) {
                return;
            }
            LockSupport.parkNanos(this, POLL_NANOS / 50);
        }
        try {
            giveBack();
        }
        catch (RuntimeException ex) {
            // Other processes get these permits back once the leases expire: say so, it costs them that long.
            logger.log(Level.WARNING, () -> "Cluster bulkhead '" + getName() + "': could not give back its leases at close ("
                    + ex + "); other processes get them back when they expire, within "
                    + this.config.getLeaseDuration().toMillis() + " ms");
        }
    }

    /**
     * After close nobody grants a lease any more: calls still waiting for one are rejected ({@code shut-down}) instead
     * of waiting out their max wait (forever, if it is unbounded), and so is every call that queues later.
     */
    private void handBack() {
        this.bulkhead.removeListener(this.activity);
        // Set before the waiters are withdrawn: a call queued after that sees it (the queue's lock orders both).
        this.handedBack = true;
        rejectWaitingAfterClose();
    }

    private void rejectWaitingAfterClose() {
        this.external.rejectWaiting(RejectionReason.SHUT_DOWN, "cluster bulkhead '" + getName() + "' was closed");
    }

    /**
     * Gives back every lease no call uses. A lease another process handed over while this one still waited comes with
     * the reply on top of what is kept; the first sync (wanting nothing) leaves the queue, so a second one gives it back.
     */
    private void giveBack() {
        for (int round = 0; round < 3; round++) {
            int keep = this.external.shrinkTo(0);
            LeaseState reply = this.leases.sync(keep, 0, this.limit);
            this.held = reply.held();
            this.state = reply;
            if (reply.held() <= keep) {
                return;
            }
        }
    }

    /**
     * On the caller's thread, right after it queued: when the process holds no lease, asks Redis for the waiters'
     * leases without waking the governor. Returns whether the script was sent; the governor is signalled otherwise.
     */
    private boolean askForFirstLease() {
        LeaseState last = this.state;
        if (this.mode != ClusterMode.CLUSTER || !this.initialized || last == null || this.held != 0
                || this.limitToStore.get() != 0 || !this.leases.async() || this.closed) {
            return false;
        }
        long now = System.nanoTime();
        if (now - this.settleUntil < 0 || !this.calling.compareAndSet(false, true)) {
            return false;
        }
        // Re-read under the flag: the governor may have synced since.
        int want = Math.min(this.external.waiting(), cap(now, true));
        if (this.held != 0 || this.external.limit() != 0 || this.mode != ClusterMode.CLUSTER || want <= 0 || this.closed) {
            this.calling.set(false);
            return false;
        }
        long start = System.nanoTime();
        CompletableFuture<LeaseState> reply;
        try {
            // No lease, so no permit in use: the process keeps nothing.
            reply = this.leases.syncAsync(0, want, this.limit);
        }
        catch (RuntimeException ex) {
            this.calling.set(false);
            return false;
        }
        reply.whenComplete((granted, failure) -> {
            boolean governorNeeded = true;
            try {
                if (failure == null && System.nanoTime() - leasedUntil(start) >= 0) {
                    // Granted, but so late that Redis may have reaped the leases and handed them on: not used. The
                    // governor's next sync gives back what no call uses.
                    this.remote.set(true);
                }
                else if (failure == null) {
                    roundTrip(System.nanoTime() - start);
                    this.leasedUntil = leasedUntil(start);
                    // The governor may not look before these calls end: the leases they wanted linger.
                    this.recentPeak.record(want, System.nanoTime());
                    applied(granted, System.nanoTime());
                    // All granted and used: the calls' completions wake the governor later, to let the leases linger and
                    // go. A waiter that gave up meanwhile leaves a lease nobody will use: the governor gives it back.
                    governorNeeded = granted.held() != want || granted.othersWaiting() > 0
                            || this.external.active() + this.external.waiting() < granted.held();
                }
                else {
                    // The governor syncs next and falls back if Redis is away: nothing is trusted until it claims
                    // what is in use.
                    this.remote.set(true);
                }
            }
            catch (RuntimeException | Error ex) {
                // A failing listener, or an invalid limit in Redis: as on the governor, a failed sync (counted and
                // logged), not an exception the reply's future would keep to itself.
                unexpected(ex);
            }
            finally {
                this.calling.set(false);
                if (this.deferred.getAndSet(false) || governorNeeded) {
                    signal();
                }
            }
        });
        return true;
    }

    /** One round of the governor; returns how long to wait for the next one unless signalled. */
    private long step(long now) {
        long renewNanos = this.config.renewPeriod().toNanos();
        try {
            if (!this.initialized) {
                applyLimit(this.leases.init(this.limit));
                this.initialized = true;
            }
            int toStore = this.limitToStore.get();
            if (toStore > 0) {
                this.leases.changeLimit(toStore, waitMillis(System.nanoTime()));
                // Kept until stored: a failed write is retried at the next round.
                this.limitToStore.compareAndSet(toStore, 0);
                this.limit = toStore;
                this.remote.set(true);
            }
        }
        catch (RuntimeException ex) {
            failed(ex, 0);
            return POLL_NANOS;
        }
        int demand = this.external.active() + this.external.waiting();
        int limitNow = this.external.limit();
        if (demand > 0) {
            this.lastBusy = now;
        }
        int recent = this.recentPeak.record(Math.max(demand, this.busiestSinceStep.getAndSet(0)), now);
        LeaseState last = this.state;
        // Idle leases linger unless another process waits, so calls that come within the linger reuse them; as many
        // as calls ran or waited at once lately, not since a burst long past.
        boolean linger = this.mode == ClusterMode.CLUSTER && now - this.lastBusy < this.lingerNanos
                && (last == null || last.othersWaiting() == 0);
        int desired = linger ? Math.max(demand, Math.min(limitNow, recent)) : demand;
        int target = Math.min(desired, cap(now, inTurn(now)));
        // Never less than what may be in use: calls that got a permit before a shrink keep theirs. In fallback the
        // local share stays in force while retrying, and all of it is claimed when Redis answers.
        int keep = (this.mode == ClusterMode.FALLBACK) ? Math.max(limitNow, this.external.active())
                : this.external.shrinkTo(Math.min(target, limitNow));
        // While others wait, one permit above the fair share is asked for (when the limit does not divide evenly): it
        // comes in turn, for one turn of this process's calls.
        int want = Math.max(0, Math.min(desired, cap(now, true)) - keep);
        boolean remoteChange = this.remote.getAndSet(false);
        boolean due = this.mode == ClusterMode.FALLBACK || keep != this.held || want > this.lastWant || remoteChange
                || now - this.lastSync >= renewNanos || (want > 0 && now - this.lastSync >= POLL_NANOS);
        if (!due) {
            long wait = Math.min((want > 0) ? POLL_NANOS : renewNanos, this.lastSync + renewNanos - now);
            return untilTurnEnds(now, linger ? Math.min(wait, this.lastBusy + this.lingerNanos - now + 1) : wait);
        }
        long start = System.nanoTime();
        LeaseState reply;
        try {
            reply = this.leases.sync(keep, want, this.limit, waitMillis(start));
            if (System.nanoTime() - leasedUntil(start) >= 0) {
                // Redis may have reaped what it renewed or granted before the reply arrived, and handed it on.
                throw new IllegalStateException("the reply came after the leases it renewed may have expired");
            }
        }
        catch (RuntimeException ex) {
            failed(ex, System.nanoTime() - start);
            return POLL_NANOS;
        }
        roundTrip(System.nanoTime() - start);
        this.leasedUntil = leasedUntil(start);
        this.lastSync = now;
        this.lastWant = want;
        if (this.mode == ClusterMode.FALLBACK) {
            recovered(now);
        }
        applied(reply, now);
        if (target < demand && cap(now) > target) {
            // Held to its fair share, and the reply lifted it (the others stopped waiting): ask for more now, not at
            // the next renewal.
            return 0;
        }
        if (linger && reply.othersWaiting() > 0) {
            // Kept idle leases while another process started waiting: give them back now, not when the linger ends.
            return 0;
        }
        long wait = (want > 0) ? POLL_NANOS : renewNanos;
        return untilTurnEnds(now, linger ? Math.min(wait, this.lastBusy + this.lingerNanos - now + 1) : wait);
    }

    /** {@code wait}, but no longer than until a turn with the permit above the fair share ends: it goes back then. */
    private long untilTurnEnds(long now, long wait) {
        return inTurn(now) ? Math.max(0, Math.min(wait, this.turnUntil - now + 1)) : wait;
    }

    /** Whether this process is in its turn with the permit above its fair share at {@code now}. */
    private boolean inTurn(long now) {
        return this.turn && now - this.turnUntil < 0;
    }

    /** A script call succeeded after {@code nanos}. */
    private void roundTrip(long nanos) {
        this.listener.onRoundTrip(this, nanos, null);
        this.renewals.increment();
        long average = this.roundTripNanos;
        this.roundTripNanos = (average == 0) ? nanos : average + (nanos - average) / 8;
    }

    /**
     * How long a process keeps the permit above its fair share while others wait, its calls passing it on among
     * themselves: {@value #TURN_ROUND_TRIPS} round trips to Redis, at least 20 ms and at most 100 ms. Handing it to
     * the next process takes two or three script calls (one giving it back, one taking it, and the new holder hearing
     * that the other waits again), while it runs no call; passed on after every call, 1 ms calls left it idle most of
     * the time and cost Redis about two script calls per call.
     */
    private long turnNanos() {
        return Math.clamp(TURN_ROUND_TRIPS * this.roundTripNanos, MIN_TURN_NANOS, MAX_TURN_NANOS);
    }

    /**
     * Until when leases renewed by a sync sent at {@code start} surely last: a tenth of the lease earlier than Redis
     * lets them expire, for the scheduling of the thread that falls back.
     */
    private long leasedUntil(long start) {
        long lease = this.config.getLeaseDuration().toNanos();
        return start + lease - lease / 10;
    }

    /**
     * How long a sync sent at {@code start} may wait for its reply: the client's timeout, but while the process holds
     * leases no longer than they surely last. A process cut off from Redis without an error (packets dropped) then
     * falls back when its leases may have gone to others, not only when the client gives up. Throws, sending nothing,
     * when they may have already.
     */
    private long waitMillis(long start) {
        long timeout = this.leases.timeoutMillis();
        if (this.mode != ClusterMode.CLUSTER || this.held == 0) {
            return timeout;
        }
        long left = TimeUnit.NANOSECONDS.toMillis(this.leasedUntil - start);
        if (left <= 0) {
            // Not sent at all: Redis would renew, or grant, leases this process no longer counts on.
            throw new IllegalStateException("the leases may have expired before they were renewed");
        }
        return Math.min(timeout, left);
    }

    /** Applies a reply from Redis: the leases held, the limit, and the local limit they allow. */
    private void applied(LeaseState reply, long now) {
        this.held = reply.held();
        this.state = reply;
        applyLimit(reply.limit());
        // Once closed, a lease granted now is for no call: the governor's last sync gives it back.
        int share = cap(now, false);
        int usable = this.closed ? 0 : Math.min(reply.held(), cap(now, true));
        if (usable <= share) {
            this.turn = false;
        }
        else if (!this.turn) {
            // The permit above the fair share, granted in turn while others wait (or still held as they start to):
            // the calls here pass it on among themselves for one turn.
            this.turnUntil = now + turnNanos();
            this.turn = true;
        }
        // The turn is over: the permit goes back when the call using it ends instead of passing to the next one. Not
        // raised to it first either, which would hand it to a waiting call before the shrink (the reply of a sync sent
        // while its call still ran).
        int allowed = (usable > share && !inTurn(now)) ? share : usable;
        if (allowed > this.external.limit()) {
            this.external.grow(allowed);
        }
        else if (allowed < this.external.limit()) {
            this.external.shrinkTo(allowed);
            signal();
        }
        if (allowed < usable) {
            // The governor gives it back once no call uses it.
            signal();
        }
    }

    /** Counts a failure of a step as one of Redis (nothing is trusted until the next sync); never throws. */
    private void unexpected(Throwable ex) {
        RuntimeException failure = (ex instanceof RuntimeException runtime) ? runtime
                : new IllegalStateException("a step of the governor failed: " + ex, ex);
        if (failure != ex) {
            logger.log(Level.WARNING, () -> "Cluster bulkhead '" + getName() + "': a step failed; counted as a failed "
                    + "sync, the governor goes on", ex);
        }
        try {
            failed(failure, 0);
        }
        catch (RuntimeException | Error again) {
            failure.addSuppressed(again);
            logger.log(Level.WARNING, () -> "Cluster bulkhead '" + getName() + "': a step failed", failure);
        }
    }

    /** Takes the cluster-wide limit from Redis, and shows it as the local bulkhead's ceiling. */
    private void applyLimit(int clusterLimit) {
        if (clusterLimit < 1) {
            throw new IllegalStateException("Cluster bulkhead '" + getName() + "': the limit in Redis is "
                    + clusterLimit + ", but it must be at least 1; set it with changeLimit (or the bulkheads endpoint)");
        }
        this.limit = clusterLimit;
        // A limit written here and not stored yet is newer than Redis's: the ceiling stays, and it is stored next.
        if (this.limitToStore.get() == 0 && this.bulkhead.getConfig().getMaxConcurrentCalls() != clusterLimit) {
            this.applying = Thread.currentThread();
            try {
                this.bulkhead.changeLimit(clusterLimit);
            }
            finally {
                this.applying = null;
            }
        }
    }

    /** The most permits this process may use now: its fair share while others wait, or while settling after a fallback. */
    private int cap(long now) {
        return cap(now, false);
    }

    /**
     * As {@link #cap(long)}; {@code inTurn}: with the one permit above the fair share that a process may ask for, and
     * use for one turn, while others wait and the limit does not divide evenly among the processes (the remainder goes
     * round the waiting processes that way).
     */
    private int cap(long now, boolean inTurn) {
        LeaseState last = this.state;
        int cap = this.limit;
        if (last != null && last.othersWaiting() > 0) {
            cap = Math.min(cap, last.fairShare() + ((inTurn && last.remainder() > 0) ? 1 : 0));
        }
        if (now - this.settleUntil < 0) {
            // A Redis that restarted has seen only some of the processes yet: keep the share from before.
            cap = Math.min(cap, this.shareAtFailure);
        }
        if (last != null && last.clusterHeld() > last.limit()) {
            // More leases are held than the limit allows: it was lowered, or a process kept using leases Redis had
            // already reaped (a long pause). Each process gives back its part of the excess as its calls end.
            long excess = last.clusterHeld() - last.limit();
            int giveBack = (int) ((excess * last.held() + last.clusterHeld() - 1) / last.clusterHeld());
            cap = Math.min(cap, Math.max(0, last.held() - giveBack));
        }
        return cap;
    }

    /** The limit divided by the processes last seen alive, at least 1. */
    private int localShare() {
        LeaseState last = this.state;
        int processes = (last != null) ? Math.max(1, last.processes()) : 1;
        return Math.max(1, this.limit / processes);
    }

    private void failed(RuntimeException ex, long nanos) {
        this.errors.increment();
        this.listener.onRoundTrip(this, nanos, ex);
        // Whatever Redis did with the last request, nothing is trusted until the next sync claims what is in use; a
        // permit above the share that a reply brings after that starts a turn of its own.
        this.held = 0;
        this.turn = false;
        long now = System.nanoTime();
        if (this.mode == ClusterMode.CLUSTER) {
            this.fallbackSince = now;
            this.leasedAtFailure = this.initialized ? this.external.limit() : Integer.MAX_VALUE;
            this.shareAtFailure = localShare();
            this.mode = ClusterMode.FALLBACK;
            String rejection = rejection(ex);
            if (rejection != null) {
                // Redis answered: the keys hold what the scripts cannot use. Say what, and how to fix it.
                logger.log(Level.WARNING, () -> "Cluster bulkhead '" + getName() + "': Redis rejected the lease script: "
                        + rejection + wrongTypeHint(rejection) + "; falling back to " + this.config.getFallback()
                        + " until it is fixed");
            }
            else {
                logger.log(Level.WARNING, () -> "Cluster bulkhead '" + getName() + "': Redis unreachable, falling back to "
                        + this.config.getFallback() + ": " + ex);
            }
            this.listener.onModeChanged(this, ClusterMode.FALLBACK);
        }
        if (this.config.getFallback() == ClusterFallback.LOCAL) {
            // Other processes may still use their leases until they notice: during the first lease, no more than
            // was leased here.
            int share = (now - this.fallbackSince < this.config.getLeaseDuration().toNanos())
                    ? Math.min(this.shareAtFailure, this.leasedAtFailure) : this.shareAtFailure;
            if (share > this.external.limit()) {
                this.external.grow(share);
            }
            else {
                this.external.shrinkTo(share);
            }
        }
        else {
            this.external.shrinkTo(0);
            rejectWaiting();
        }
    }

    /**
     * The error Redis replied with when {@code ex} comes from one (the script failed in Redis: Lettuce's or Jedis's
     * exception for an error reply, also wrapped by Spring Data Redis), or null. By name: either client may be absent.
     */
    static String rejection(Throwable ex) {
        int depth = 0;
        for (Throwable cause = ex; cause != null && depth < 16; cause = cause.getCause(), depth++) {
            for (Class<?> type = cause.getClass(); type != null; type = type.getSuperclass()) {
                String name = type.getName();
                if (name.equals("io.lettuce.core.RedisCommandExecutionException")
                        || name.equals("redis.clients.jedis.exceptions.JedisDataException")) {
                    return cause.getMessage();
                }
            }
        }
        return null;
    }

    private String wrongTypeHint(String rejection) {
        return rejection.startsWith("WRONGTYPE") ? " (a key of bulkhead '" + getName() + "', " + this.leases.keyPattern()
                + ", holds a value of another type than the lease scripts use: delete the bulkhead's keys)" : "";
    }

    private void recovered(long now) {
        this.mode = ClusterMode.CLUSTER;
        if (this.config.getFallback() == ClusterFallback.LOCAL) {
            // Other processes may still enforce their local share: keep to ours for one lease.
            this.settleUntil = now + this.config.getLeaseDuration().toNanos();
        }
        logger.log(Level.INFO, () -> "Cluster bulkhead '" + getName() + "': Redis is back, permits are leased again");
        this.listener.onModeChanged(this, ClusterMode.CLUSTER);
    }

    private void rejectWaiting() {
        this.external.rejectWaiting(RejectionReason.CLUSTER_UNAVAILABLE, "Redis cannot be reached and cluster.fallback is reject");
    }

    /** What the bulkhead tells this cluster bulkhead. */
    private final class Owner implements ExternalLimit.Owner {

        @Override
        public void onQueued(Bulkhead queued) {
            if (ClusterBulkhead.this.handedBack) {
                // Closed and gone: no lease will come. Not on the caller's thread, as below.
                Thread.ofVirtual()
                    .inheritInheritableThreadLocals(false)
                    .start(ClusterBulkhead.this::rejectWaitingAfterClose);
            }
            else if (ClusterBulkhead.this.mode == ClusterMode.FALLBACK
                    && ClusterBulkhead.this.config.getFallback() == ClusterFallback.REJECT) {
                // Not on the caller's thread: a waiter is called back only after it was queued.
                Thread.ofVirtual()
                    .inheritInheritableThreadLocals(false)
                    .start(ClusterBulkhead.this::rejectWaiting);
            }
            else {
                ClusterBulkhead.this.lastBusy = System.nanoTime();
                if (!askForFirstLease()) {
                    signal();
                }
            }
        }

        @Override
        public void onReleased(Bulkhead released) {
            // A call that never ran gave its permit back: as after a completed call, its lease may go.
            ClusterBulkhead.this.lastBusy = System.nanoTime();
            signal();
        }

        @Override
        public void onMaxConcurrentCallsChanged(Bulkhead changed, int maxConcurrentCalls) {
            if (Thread.currentThread() == ClusterBulkhead.this.applying) {
                // The limit read from Redis, shown as the ceiling: nothing to store.
                return;
            }
            // Stored even if it equals the limit last read: a change not stored yet may be pending, and the last
            // change made here is the one that counts (20 and back to 10 must end at 10).
            ClusterBulkhead.this.limitToStore.set(maxConcurrentCalls);
            signal();
        }
    }
}
