package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Randomized mixes of success, failure, cancellation, interrupts, wait time-outs, full queues,
 * limit changes and the three ways to stop an executor. Each round must end with no active or
 * waiting call, every permit free, counters that agree with what callers saw, and every task
 * accounted for exactly once: it ran, it was rejected with a {@link BulkheadRejectedException}, it
 * was returned by {@code shutdownNow()}, or its caller cancelled it before it started.
 *
 * <p>Rounds are seeded; a failing round prints its seed. Rerun it alone with
 * {@code -Dloom.bulkhead.seed=<seed> -Dloom.bulkhead.rounds=1} (thread timing still varies, the
 * sequence of operations does not).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RandomizedAccountingTest {

    private static final long BASE_SEED = Long.getLong("loom.bulkhead.seed", new Random().nextLong());

    private static final int ROUNDS = Integer.getInteger("loom.bulkhead.rounds", 16);

    private static final Pattern TASK_ID = Pattern.compile("task-(\\d+)");

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void everyExecutorTaskIsAccountedForExactlyOnce(Submitters submitters) throws Exception {
        int[] totals = new int[Outcome.values().length];
        for (int round = 0; round < ROUNDS; round++) {
            long seed = BASE_SEED + round;
            reproducibly(seed, () -> {
                int[] outcomes = new ExecutorRound(seed, submitters).run();
                for (int i = 0; i < totals.length; i++) {
                    totals[i] += outcomes[i];
                }
            });
        }
        StringBuilder summary = new StringBuilder();
        for (Outcome outcome : Outcome.values()) {
            summary.append(", ").append(outcome.name().toLowerCase(java.util.Locale.ROOT)).append(' ').append(totals[outcome.ordinal()]);
        }
        System.out.printf("executor rounds with %s submitters from seed %d:%s%n", submitters, BASE_SEED, summary.substring(1));
    }

    /** How a task ended; counted across rounds to show what a run exercised. */
    enum Outcome {

        RAN, QUEUE_FULL, SHUT_DOWN, WAIT_TIMED_OUT, RETURNED_BY_SHUTDOWN_NOW, CANCELLED_BEFORE_START
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void everyParkingCallerGetsAPermitOrOneRejectionAndGivesItBack(Submitters callers) throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            long seed = BASE_SEED + round;
            reproducibly(seed, () -> new CallerRound(seed, callers).run());
        }
    }

    private static void reproducibly(long seed, Round round) {
        try {
            round.run();
        }
        catch (Throwable ex) {
            System.err.println("Randomized round failed with seed " + seed);
            throw new AssertionError("Round with seed " + seed + " failed; rerun it alone with -Dloom.bulkhead.seed="
                    + seed + " -Dloom.bulkhead.rounds=1", ex);
        }
    }

    @FunctionalInterface
    private interface Round {

        void run() throws Exception;
    }

    /** One executor, several submitters, random tasks, random cancels, one random way to stop. */
    private static final class ExecutorRound {

        private static final int SUBMITTING_THREADS = 3;

        private static final int TASKS_PER_THREAD = 40;

        private static final int TASKS = SUBMITTING_THREADS * TASKS_PER_THREAD;

        private final long seed;

        private final Submitters submitters;

        private final int limit;

        private final int queueCapacity;

        private final Duration maxWait;

        private final boolean fair;

        private final Ending ending;

        private final long endingDelayNanos;

        private final boolean changeLimits;

        /** Longest pause of a submitter between two tasks: 0 for bursts that overrun the queue. */
        private final long maxPauseNanos;

        private final AtomicIntegerArray ran = new AtomicIntegerArray(TASKS);

        private final AtomicIntegerArray threw = new AtomicIntegerArray(TASKS);

        private final AtomicReferenceArray<TrackedTask> tasks = new AtomicReferenceArray<>(TASKS);

        private final AtomicReferenceArray<Future<Integer>> futures = new AtomicReferenceArray<>(TASKS);

        private final AtomicReferenceArray<BulkheadRejectedException> rejectedAtSubmit = new AtomicReferenceArray<>(TASKS);

        private final AtomicInteger uncaught = new AtomicInteger();

        private final AtomicInteger maxLimit = new AtomicInteger();

        private final ConcurrencyProbe probe = new ConcurrencyProbe();

        ExecutorRound(long seed, Submitters submitters) {
            this.seed = seed;
            this.submitters = submitters;
            Random random = new Random(seed);
            this.limit = 1 + random.nextInt(4);
            this.queueCapacity = (random.nextInt(8) == 0) ? 0 : 5 + random.nextInt(60);
            this.maxWait = switch (random.nextInt(8)) {
                case 0 -> Duration.ZERO;
                case 1, 2 -> Duration.ofSeconds(30);
                default -> Duration.ofMillis(2 + random.nextInt(30));
            };
            this.fair = random.nextBoolean();
            this.ending = Ending.values()[(int) Math.floorMod(seed, (long) Ending.values().length)];
            this.endingDelayNanos = random.nextLong(TimeUnit.MILLISECONDS.toNanos(60));
            this.changeLimits = random.nextInt(3) == 0;
            this.maxPauseNanos = new long[] { 0, 300_000, 1_000_000 }[random.nextInt(3)];
            this.maxLimit.set(this.limit);
        }

        int[] run() throws Exception {
            RecordingListener listener = new RecordingListener();
            BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("random")
                .maxConcurrentCalls(this.limit)
                .queueCapacity(this.queueCapacity)
                .maxWaitDuration(this.maxWait)
                .fair(this.fair)
                .threadFactory(Thread.ofVirtual()
                    .name("random-", 0)
                    .uncaughtExceptionHandler((thread, ex) -> this.uncaught.incrementAndGet())
                    .factory())
                .build();
            Bulkhead bulkhead = executor.getBulkhead();
            bulkhead.addListener(listener);
            List<Runnable> returned = List.of();
            List<LogRecord> logged;
            try (LogCapture log = new LogCapture(BoundedVirtualExecutor.class)) {
                AtomicBoolean stopChanging = new AtomicBoolean();
                Submitters.Started<Object> limitChanger = this.changeLimits
                        ? this.submitters.call(() -> changeLimits(bulkhead, stopChanging)) : null;
                Submitters.Started<Object> submitting = Submitters.PLATFORM.call(() -> {
                    this.submitters.runConcurrently(SUBMITTING_THREADS, (index) -> submit(executor, index));
                    return null;
                });
                Thread.sleep(Duration.ofNanos(this.endingDelayNanos));
                switch (this.ending) {
                    case SHUTDOWN -> executor.shutdown();
                    case SHUTDOWN_NOW -> returned = executor.shutdownNow();
                    case CLOSE -> executor.close();
                }
                assertThat(executor.awaitTermination(60, TimeUnit.SECONDS)).as("terminated").isTrue();
                submitting.result().get(60, TimeUnit.SECONDS);
                stopChanging.set(true);
                if (limitChanger != null) {
                    limitChanger.result().get(60, TimeUnit.SECONDS);
                }
                logged = log.records();
            }
            return verify(executor, bulkhead, listener, returned, logged);
        }

        private Object changeLimits(Bulkhead bulkhead, AtomicBoolean stop) throws InterruptedException {
            Random random = new Random(this.seed * 17);
            while (!stop.get()) {
                int newLimit = 1 + random.nextInt(5);
                this.maxLimit.accumulateAndGet(newLimit, Math::max);
                bulkhead.changeLimit(newLimit);
                Thread.sleep(Duration.ofNanos(random.nextLong(200_000, 3_000_000)));
            }
            return null;
        }

        private void submit(BoundedVirtualExecutor executor, int submitter) throws InterruptedException {
            Random random = new Random(this.seed * 31 + submitter);
            for (int i = 0; i < TASKS_PER_THREAD; i++) {
                int id = submitter * TASKS_PER_THREAD + i;
                Body body = Body.pick(random);
                long nanos = (body == Body.SLEEP) ? random.nextLong(2_000_000, 15_000_000) : random.nextLong(500_000);
                boolean viaExecute = random.nextInt(4) == 0;
                int cancel = viaExecute ? 0 : random.nextInt(7);
                long cancelDelayNanos = random.nextBoolean() ? 0 : random.nextLong(2_000_000);
                long pauseNanos = (this.maxPauseNanos > 0) ? random.nextLong(this.maxPauseNanos) : 0;
                TrackedTask task = new TrackedTask(id, body, nanos, viaExecute);
                this.tasks.set(id, task);
                try {
                    if (viaExecute) {
                        executor.execute(task);
                    }
                    else {
                        this.futures.set(id, executor.submit((Callable<Integer>) task));
                    }
                }
                catch (BulkheadRejectedException ex) {
                    this.rejectedAtSubmit.set(id, ex);
                    continue;
                }
                if (cancel >= 5) {
                    if (cancelDelayNanos > 0) {
                        Thread.sleep(Duration.ofNanos(cancelDelayNanos));
                    }
                    this.futures.get(id).cancel(cancel == 6);
                }
                if (pauseNanos > 0) {
                    Thread.sleep(Duration.ofNanos(pauseNanos));
                }
            }
        }

        private int[] verify(BoundedVirtualExecutor executor, Bulkhead bulkhead, RecordingListener listener,
                List<Runnable> returnedTasks, List<LogRecord> logged) throws Exception {
            String round = toString();
            Map<Object, Integer> submitted = new IdentityHashMap<>();
            for (int id = 0; id < TASKS; id++) {
                Object handle = (this.futures.get(id) != null) ? this.futures.get(id) : this.tasks.get(id);
                submitted.put(handle, id);
            }
            Set<Integer> returned = new HashSet<>();
            for (Runnable task : returnedTasks) {
                Integer id = submitted.get(task);
                assertThat(id).as("%s: shutdownNow returned an unknown task %s", round, task).isNotNull();
                assertThat(returned.add(id)).as("%s: task-%d returned twice", round, id).isTrue();
            }
            Set<Integer> loggedRejections = new HashSet<>();
            for (LogRecord record : logged) {
                assertThat(record.getLevel()).as(round).isEqualTo(Level.WARNING);
                assertThat(record.getMessage()).as(round).contains("'random'", "wait-timed-out");
                Matcher matcher = TASK_ID.matcher(record.getMessage());
                assertThat(matcher.find()).as("%s: log names the task: %s", round, record.getMessage()).isTrue();
                int id = Integer.parseInt(matcher.group(1));
                assertThat(loggedRejections.add(id)).as("%s: task-%d logged twice", round, id).isTrue();
            }

            int ranCount = 0;
            int cancelledCount = 0;
            int rejectedLaterCount = 0;
            int queueFull = 0;
            int shutDown = 0;
            int executedThrew = 0;
            for (int id = 0; id < TASKS; id++) {
                TrackedTask task = this.tasks.get(id);
                Future<Integer> future = this.futures.get(id);
                String what = round + ": " + task;
                int runs = this.ran.get(id);
                assertThat(runs).as("%s ran more than once", what).isLessThanOrEqualTo(1);
                boolean ran = runs == 1;
                BulkheadRejectedException atSubmit = this.rejectedAtSubmit.get(id);
                boolean wasReturned = returned.contains(id);
                boolean rejectedLater = loggedRejections.contains(id);
                boolean cancelled = false;
                if (atSubmit != null) {
                    assertThat(atSubmit.getBulkheadName()).isEqualTo("random");
                    assertThat(atSubmit.getReason()).as(what).isIn(RejectionReason.QUEUE_FULL, RejectionReason.SHUT_DOWN);
                    queueFull += (atSubmit.getReason() == RejectionReason.QUEUE_FULL) ? 1 : 0;
                    shutDown += (atSubmit.getReason() == RejectionReason.SHUT_DOWN) ? 1 : 0;
                }
                if (task.viaExecute) {
                    assertThat(future).isNull();
                    executedThrew += this.threw.get(id);
                }
                else if (future != null && !wasReturned) {
                    assertThat(future.isDone()).as("%s: future of an ended task is done", what).isTrue();
                    if (future.isCancelled()) {
                        cancelled = !ran;
                    }
                    else {
                        try {
                            future.get();
                        }
                        catch (ExecutionException ex) {
                            if (ex.getCause() instanceof BulkheadRejectedException rejection) {
                                assertThat(rejection.getReason()).as(what).isEqualTo(RejectionReason.WAIT_TIMED_OUT);
                                assertThat(rejection.getBulkheadName()).isEqualTo("random");
                                rejectedLater = true;
                            }
                        }
                    }
                }
                int outcomes = (ran ? 1 : 0) + ((atSubmit != null) ? 1 : 0) + (wasReturned ? 1 : 0) + (rejectedLater ? 1 : 0)
                        + (cancelled ? 1 : 0);
                assertThat(outcomes).as("%s: ran=%s, rejected at submit=%s, returned by shutdownNow=%s, rejected later=%s,"
                        + " cancelled before start=%s", what, ran, atSubmit, wasReturned, rejectedLater, cancelled)
                    .isEqualTo(1);
                ranCount += ran ? 1 : 0;
                cancelledCount += cancelled ? 1 : 0;
                rejectedLaterCount += rejectedLater ? 1 : 0;
            }
            if (this.ending != Ending.SHUTDOWN_NOW) {
                assertThat(returned).isEmpty();
            }

            assertThat(executor.isTerminated()).as(round).isTrue();
            assertThat(bulkhead.getActiveCount()).as("%s: active", round).isZero();
            assertThat(bulkhead.getWaitingCount()).as("%s: waiting", round).isZero();
            assertThat(bulkhead.getAvailablePermits()).as("%s: free permits", round).isEqualTo(bulkhead.getLimit());
            assertThat(this.probe.max()).as("%s: most running at once", round).isLessThanOrEqualTo(this.maxLimit.get());
            assertThat(bulkhead.getCompletedCount()).as("%s: completed = permitted", round).isEqualTo(bulkhead.getPermittedCount());
            assertThat(bulkhead.getPermittedCount()).as("%s: permitted", round)
                .isBetween((long) ranCount, (long) ranCount + cancelledCount);
            assertThat(bulkhead.getRejectedCount(RejectionReason.QUEUE_FULL)).as(round).isEqualTo(queueFull);
            assertThat(bulkhead.getRejectedCount(RejectionReason.SHUT_DOWN)).as(round).isEqualTo(shutDown);
            assertThat(bulkhead.getRejectedCount(RejectionReason.INTERRUPTED)).as(round).isZero();
            // A waiter cancelled while its wait expired is counted as a time-out by the bulkhead.
            assertThat(bulkhead.getRejectedCount(RejectionReason.WAIT_TIMED_OUT)).as(round)
                .isBetween((long) rejectedLaterCount, (long) rejectedLaterCount + cancelledCount);
            assertThat(listener.permitted.sum()).as(round).isEqualTo(bulkhead.getPermittedCount());
            assertThat(listener.completed.sum()).as(round).isEqualTo(bulkhead.getCompletedCount());
            for (RejectionReason reason : RejectionReason.values()) {
                assertThat(listener.rejected(reason)).as("%s: %s", round, reason).isEqualTo(bulkhead.getRejectedCount(reason));
            }
            // The handler runs as the failed thread unwinds, just after the executor saw the task end.
            int expectedUncaught = executedThrew;
            Awaits.eventually().until(() -> this.uncaught.get() >= expectedUncaught);
            assertThat(this.uncaught).as("%s: failures of executed tasks reach the thread's handler", round)
                .hasValue(executedThrew);
            int[] outcomes = new int[Outcome.values().length];
            outcomes[Outcome.RAN.ordinal()] = ranCount;
            outcomes[Outcome.QUEUE_FULL.ordinal()] = queueFull;
            outcomes[Outcome.SHUT_DOWN.ordinal()] = shutDown;
            outcomes[Outcome.WAIT_TIMED_OUT.ordinal()] = rejectedLaterCount;
            outcomes[Outcome.RETURNED_BY_SHUTDOWN_NOW.ordinal()] = returned.size();
            outcomes[Outcome.CANCELLED_BEFORE_START.ordinal()] = cancelledCount;
            return outcomes;
        }

        @Override
        public String toString() {
            return "round[seed=" + this.seed + ", limit=" + this.limit + ", queue=" + this.queueCapacity + ", maxWait="
                    + this.maxWait + ", fair=" + this.fair + ", " + this.ending + ", changeLimits=" + this.changeLimits
                    + ", maxPauseNanos=" + this.maxPauseNanos + "]";
        }

        enum Ending {

            SHUTDOWN, SHUTDOWN_NOW, CLOSE
        }

        enum Body {

            SUCCEED, THROW, SLEEP, INTERRUPT_ITSELF;

            static Body pick(Random random) {
                int roll = random.nextInt(20);
                return (roll < 11) ? SUCCEED : (roll < 14) ? THROW : (roll < 17) ? SLEEP : INTERRUPT_ITSELF;
            }
        }

        /** A task that records that it ran; named {@code task-<id>} so logs identify it. */
        private final class TrackedTask implements Runnable, Callable<Integer> {

            private final int id;

            private final Body body;

            private final long nanos;

            private final boolean viaExecute;

            TrackedTask(int id, Body body, long nanos, boolean viaExecute) {
                this.id = id;
                this.body = body;
                this.nanos = nanos;
                this.viaExecute = viaExecute;
            }

            @Override
            public Integer call() throws Exception {
                ExecutorRound.this.ran.incrementAndGet(this.id);
                ExecutorRound.this.probe.enter();
                try {
                    switch (this.body) {
                        case SUCCEED -> Thread.sleep(Duration.ofNanos(this.nanos));
                        case THROW -> throw new IllegalStateException(this + " fails on purpose");
                        case SLEEP -> {
                            try {
                                Thread.sleep(Duration.ofNanos(this.nanos));
                            }
                            catch (InterruptedException ex) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        case INTERRUPT_ITSELF -> Thread.currentThread().interrupt();
                    }
                    return this.id;
                }
                finally {
                    ExecutorRound.this.probe.exit();
                }
            }

            @Override
            public void run() {
                try {
                    call();
                }
                catch (Exception ex) {
                    ExecutorRound.this.threw.set(this.id, 1);
                    throw (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex);
                }
            }

            @Override
            public String toString() {
                return "task-" + this.id;
            }
        }
    }

    /** One bulkhead, several parking callers, random holds, interrupts and limit changes. */
    private static final class CallerRound {

        private static final int CALLERS = 6;

        private static final int CALLS_PER_CALLER = 40;

        private final long seed;

        private final Submitters callers;

        private final int limit;

        private final BulkheadConfig config;

        private final boolean changeLimits;

        private final ConcurrencyProbe probe = new ConcurrencyProbe();

        private final AtomicInteger maxLimit = new AtomicInteger();

        private final AtomicInteger granted = new AtomicInteger();

        private final Map<RejectionReason, AtomicInteger> rejected = new java.util.EnumMap<>(RejectionReason.class);

        private final AtomicInteger violations = new AtomicInteger();

        private final List<String> violationDetails = new java.util.concurrent.CopyOnWriteArrayList<>();

        CallerRound(long seed, Submitters callers) {
            this.seed = seed;
            this.callers = callers;
            Random random = new Random(seed);
            this.limit = 1 + random.nextInt(4);
            this.config = BulkheadConfig.custom()
                .maxConcurrentCalls(this.limit)
                .queueCapacity((random.nextInt(5) == 0) ? 0 : 1 + random.nextInt(20))
                .maxWaitDuration((random.nextInt(6) == 0) ? Duration.ZERO : Duration.ofMillis(1 + random.nextInt(20)))
                .fair(random.nextBoolean())
                .build();
            this.changeLimits = random.nextInt(3) == 0;
            this.maxLimit.set(this.limit);
            for (RejectionReason reason : RejectionReason.values()) {
                this.rejected.put(reason, new AtomicInteger());
            }
        }

        void run() throws Exception {
            Bulkhead bulkhead = new Bulkhead("callers", this.config);
            RecordingListener listener = new RecordingListener();
            bulkhead.addListener(listener);
            Thread[] threads = new Thread[CALLERS];
            CountDownLatch registered = new CountDownLatch(CALLERS);
            AtomicBoolean done = new AtomicBoolean();
            Submitters.Started<Object> chaos = Submitters.PLATFORM.call(() -> {
                registered.await();
                Random random = new Random(this.seed * 7);
                while (!done.get()) {
                    Thread.sleep(Duration.ofNanos(random.nextLong(100_000, 2_000_000)));
                    threads[random.nextInt(CALLERS)].interrupt();
                    if (this.changeLimits && random.nextInt(4) == 0) {
                        int newLimit = 1 + random.nextInt(5);
                        this.maxLimit.accumulateAndGet(newLimit, Math::max);
                        bulkhead.changeLimit(newLimit);
                    }
                }
                return null;
            });
            try {
                this.callers.runConcurrently(CALLERS, (index) -> {
                    threads[index] = Thread.currentThread();
                    registered.countDown();
                    Random random = new Random(this.seed * 31 + index);
                    for (int i = 0; i < CALLS_PER_CALLER; i++) {
                        call(bulkhead, random);
                    }
                    Thread.interrupted();
                });
            }
            finally {
                done.set(true);
            }
            chaos.result().get(60, TimeUnit.SECONDS);
            String round = toString();
            assertThat(this.violationDetails).as(round).isEmpty();
            assertThat(bulkhead.getActiveCount()).as("%s: active", round).isZero();
            assertThat(bulkhead.getWaitingCount()).as("%s: waiting", round).isZero();
            assertThat(bulkhead.getAvailablePermits()).as("%s: free permits", round).isEqualTo(bulkhead.getLimit());
            assertThat(this.probe.max()).as("%s: most holding a permit at once", round)
                .isLessThanOrEqualTo(this.maxLimit.get());
            int attempts = this.granted.get();
            for (RejectionReason reason : RejectionReason.values()) {
                assertThat(bulkhead.getRejectedCount(reason)).as("%s: %s", round, reason)
                    .isEqualTo(this.rejected.get(reason).get())
                    .isEqualTo(listener.rejected(reason));
                attempts += this.rejected.get(reason).get();
            }
            assertThat(bulkhead.getRejectedCount(RejectionReason.SHUT_DOWN)).isZero();
            assertThat(bulkhead.getPermittedCount()).as(round).isEqualTo(this.granted.get()).isEqualTo(listener.permitted.sum());
            assertThat(bulkhead.getCompletedCount()).as(round).isEqualTo(this.granted.get()).isEqualTo(listener.completed.sum());
            assertThat(attempts).as("%s: every blocking call ended once", round)
                .isLessThanOrEqualTo(CALLERS * CALLS_PER_CALLER)
                .isGreaterThan(0);
        }

        private void call(Bulkhead bulkhead, Random random) {
            boolean nonBlocking = random.nextInt(5) == 0;
            long holdNanos = random.nextLong(1_000_000);
            long start = System.nanoTime();
            if (nonBlocking) {
                if (!bulkhead.tryAcquirePermit()) {
                    return;
                }
            }
            else {
                try {
                    bulkhead.acquirePermit();
                }
                catch (BulkheadRejectedException ex) {
                    this.rejected.get(ex.getReason()).incrementAndGet();
                    long waited = System.nanoTime() - start;
                    if (ex.getReason() == RejectionReason.INTERRUPTED && !Thread.interrupted()) {
                        this.violationDetails.add("INTERRUPTED rejection without the interrupt flag");
                    }
                    if (ex.getReason() == RejectionReason.WAIT_TIMED_OUT && waited < this.config.maxWaitNanos()) {
                        this.violationDetails.add("timed out after " + waited + " ns, before the max wait");
                    }
                    if (!ex.getBulkheadName().equals("callers")) {
                        this.violationDetails.add("wrong name " + ex.getBulkheadName());
                    }
                    return;
                }
            }
            this.granted.incrementAndGet();
            this.probe.enter();
            try {
                Thread.sleep(Duration.ofNanos(holdNanos));
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            finally {
                this.probe.exit();
                bulkhead.onComplete(System.nanoTime() - start);
            }
        }

        @Override
        public String toString() {
            return "round[seed=" + this.seed + ", " + this.config + ", changeLimits=" + this.changeLimits + "]";
        }
    }
}
