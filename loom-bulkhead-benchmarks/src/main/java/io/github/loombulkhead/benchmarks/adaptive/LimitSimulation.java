package io.github.loombulkhead.benchmarks.adaptive;

import java.util.ArrayDeque;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A discrete-event simulation in virtual time of callers behind an adaptive limit and a callee that queues.
 *
 * <ul>
 * <li>Calls arrive as a Poisson process. A call that finds every permit in use waits in a FIFO queue (as in the
 * bulkhead) and is rejected once it waited {@link CalleeModel#maxWait()}.
 * <li>The callee runs at most its current number of workers at once; the others queue there, FIFO, and their latency
 * grows. Service times are log-normal around {@link CalleeModel#serviceTime()}.
 * <li>The caller gives up after {@link CalleeModel#readTimeout()}: the call is dropped (the limit hears a drop
 * after that RTT) while the callee still works on it, as an HTTP server does that does not notice the client left.
 * <li>Every {@link CalleeModel#tick()} the limit is recorded (and time-driven algorithms hear the time); a limit that
 * changes without a sample (loom's {@code LimitRamp}) hears the time exactly when its next step is due.
 * <li>The caller may pause ({@link CallerPause}): the callee goes on, while completions, timeouts, admissions and the
 * limit's steps wait for the pause to end. The limit is told of the pause first, as a detector thread would be.
 * </ul>
 * The same seed gives the same arrivals and service times to every algorithm.
 */
final class LimitSimulation {

    private static final int ARRIVAL = 0;

    private static final int SERVED = 1;

    private static final int TIMEOUT = 2;

    private static final int CAPACITY = 3;

    private static final int TICK = 4;

    private static final int STEP = 5;

    private static final int RESUME = 6;

    private static final int DELAYED_SUCCESS = 7;

    private final Scenario scenario;

    private final CalleeModel callee;

    private final SimulatedLimit limit;

    private final PriorityQueue<Event> events = new PriorityQueue<>();

    private final SplittableRandom arrivals;

    private final SplittableRandom services;

    private final ArrayDeque<Call> waiting = new ArrayDeque<>();

    private final ArrayDeque<Call> calleeQueue = new ArrayDeque<>();

    private final Trace trace;

    private final List<CallerPause> pauses;

    private long now;

    private long sequence;

    private int inflight;

    private int busyWorkers;

    private int workers;

    /** When the next limit step is scheduled; {@code Long.MAX_VALUE} when none is. */
    private long stepAt = Long.MAX_VALUE;

    private LimitSimulation(Scenario scenario, CalleeModel callee, SimulatedLimit limit, long seed,
            List<CallerPause> pauses) {
        this.scenario = scenario;
        this.pauses = pauses;
        this.callee = callee;
        this.limit = limit;
        this.arrivals = new SplittableRandom(seed);
        this.services = new SplittableRandom(seed * 31 + 7);
        this.trace = new Trace(callee.tick().toNanos());
        this.workers = scenario.workers();
    }

    /** Runs {@code scenario} against {@code callee} with {@code limit} deciding the limit. */
    static Trace run(Scenario scenario, CalleeModel callee, SimulatedLimit limit, long seed) {
        return run(scenario, callee, limit, seed, List.of());
    }

    /** Runs {@code scenario} against {@code callee} with {@code limit} deciding the limit, the caller pausing. */
    static Trace run(Scenario scenario, CalleeModel callee, SimulatedLimit limit, long seed,
            List<CallerPause> pauses) {
        return new LimitSimulation(scenario, callee, limit, seed, pauses).run();
    }

    private Trace run() {
        long end = this.scenario.duration().toNanos();
        if (this.scenario.burst() > 0) {
            for (int i = 0; i < this.scenario.burst(); i++) {
                this.trace.arrival(0);
                this.waiting.add(new Call(0, serviceTime()));
            }
        }
        else {
            schedule(0, ARRIVAL, null);
        }
        schedule(0, TICK, null);
        for (Scenario.CapacityStep step : this.scenario.capacitySteps()) {
            schedule(step.at().toNanos(), CAPACITY, new Call(0, step.workers()));
        }
        for (CallerPause pause : this.pauses) {
            // Scheduled before anything the pause holds back, so the limit hears of it first.
            schedule(pause.at().plus(pause.length()).toNanos(), RESUME, new Call(pause.at().toNanos(), 0));
        }
        while (!this.events.isEmpty()) {
            Event event = this.events.poll();
            if (event.time >= end) {
                break;
            }
            this.now = event.time;
            long resume = CallerPause.resumeAt(this.pauses, this.now);
            switch (event.type) {
                case ARRIVAL -> arrive(resume);
                case SERVED -> served(event.call, resume);
                case TIMEOUT -> timedOut(event.call, resume);
                case CAPACITY -> changeCapacity((int) event.call.serviceNanos);
                case TICK -> tick(resume);
                case STEP -> step(resume);
                case RESUME -> resume(event.call.arrivalNanos);
                case DELAYED_SUCCESS -> finish(event.call, true);
                default -> throw new IllegalStateException("event " + event.type);
            }
        }
        return this.trace;
    }

    private void arrive(long resume) {
        double rate = this.scenario.offeredLoad() * this.scenario.workers() / this.callee.serviceTime().toNanos();
        long gap = (long) (-Math.log(1 - this.arrivals.nextDouble()) / rate);
        schedule(this.now + Math.max(1, gap), ARRIVAL, null);
        this.trace.arrival(this.now);
        this.waiting.add(new Call(this.now, serviceTime()));
        if (resume == this.now) {
            admit();
        }
    }

    private long serviceTime() {
        double sigma = this.callee.serviceSpread();
        double normal = gaussian();
        long drawn = Math.max(1,
                (long) (this.callee.serviceTime().toNanos() * Math.exp(sigma * normal - sigma * sigma / 2)));
        // No draw without stalls: the callees without them keep the service times of every seed.
        boolean stalls = this.callee.stallShare() > 0 && this.services.nextDouble() < this.callee.stallShare();
        return stalls ? drawn * CalleeModel.STALL_FACTOR : drawn;
    }

    private double gaussian() {
        double u1 = 1 - this.services.nextDouble();
        double u2 = this.services.nextDouble();
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }

    private void admit() {
        long maxWait = this.callee.maxWait().toNanos();
        while (!this.waiting.isEmpty()) {
            Call head = this.waiting.peek();
            if (this.now - head.arrivalNanos > maxWait) {
                this.waiting.poll();
                this.trace.rejection(this.now);
                continue;
            }
            if (this.inflight >= this.limit.limit()) {
                return;
            }
            this.waiting.poll();
            start(head);
        }
    }

    private void start(Call call) {
        this.inflight++;
        call.startNanos = this.now;
        call.inflightAtStart = this.inflight;
        this.limit.onStart(this.now, this.inflight);
        schedule(this.now + this.callee.readTimeout().toNanos(), TIMEOUT, call);
        if (this.busyWorkers < this.workers) {
            serve(call);
        }
        else if (this.callee.rejectsWhenFull()) {
            // Failed as a timeout would, only at once; the timeout scheduled above then finds it finished.
            schedule(this.now + CalleeModel.REJECTION.toNanos(), TIMEOUT, call);
        }
        else {
            this.calleeQueue.add(call);
        }
    }

    private void serve(Call call) {
        this.busyWorkers++;
        schedule(this.now + call.serviceNanos, SERVED, call);
    }

    private void served(Call call, long resume) {
        this.busyWorkers--;
        startQueuedWork();
        if (call.finished) {
            return;
        }
        if (resume != this.now) {
            // The answer is there, but the paused caller reads it only when the pause ends.
            call.answered = true;
            schedule(resume, DELAYED_SUCCESS, call);
            return;
        }
        finish(call, true);
    }

    private void timedOut(Call call, long resume) {
        if (call.finished || call.answered) {
            return;
        }
        if (resume != this.now) {
            schedule(resume, TIMEOUT, call);
            return;
        }
        finish(call, false);
    }

    /** The caller runs again after the pause from {@code pausedAt} to now: the limit hears of it, then admits. */
    private void resume(long pausedAt) {
        this.limit.callerPaused(pausedAt, this.now);
        admit();
    }

    private void finish(Call call, boolean success) {
        call.finished = true;
        this.inflight--;
        long rtt = this.now - call.startNanos;
        this.trace.call(this.now, rtt, success);
        this.limit.onSample(call.startNanos, rtt, call.inflightAtStart, !success);
        scheduleStep();
        admit();
    }

    /** Schedules the limit's next change without a sample, unless an earlier one is scheduled. */
    private void scheduleStep() {
        long next = this.limit.nextChangeNanos();
        if (next != Long.MAX_VALUE && (this.stepAt == Long.MAX_VALUE || next < this.stepAt)) {
            this.stepAt = next;
            schedule(next, STEP, null);
        }
    }

    private void step(long resume) {
        if (this.now < this.stepAt) {
            // Superseded by an earlier step, which already rescheduled.
            return;
        }
        if (resume != this.now) {
            this.stepAt = resume;
            schedule(resume, STEP, null);
            return;
        }
        this.stepAt = Long.MAX_VALUE;
        this.limit.onTick(this.now);
        scheduleStep();
        admit();
    }

    private void startQueuedWork() {
        while (this.busyWorkers < this.workers && !this.calleeQueue.isEmpty()) {
            Call next = this.calleeQueue.poll();
            if (next.finished && !this.callee.servesAbandonedCalls()) {
                continue;
            }
            serve(next);
        }
    }

    private void changeCapacity(int newWorkers) {
        this.workers = newWorkers;
        startQueuedWork();
    }

    private void tick(long resume) {
        schedule(this.now + this.trace.tickNanos, TICK, null);
        if (resume != this.now) {
            this.trace.tick(this.limit.limit());
            return;
        }
        this.limit.onTick(this.now);
        scheduleStep();
        admit();
        this.trace.tick(this.limit.limit());
    }

    private void schedule(long time, int type, Call call) {
        this.events.add(new Event(time, this.sequence++, type, call));
    }

    private record Event(long time, long sequence, int type, Call call) implements Comparable<Event> {

        @Override
        public int compareTo(Event other) {
            int byTime = Long.compare(this.time, other.time);
            return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
        }
    }

    private static final class Call {

        final long arrivalNanos;

        final long serviceNanos;

        long startNanos;

        int inflightAtStart;

        boolean finished;

        /** The callee answered while the caller was paused; the caller reads it when the pause ends. */
        boolean answered;

        Call(long arrivalNanos, long serviceNanos) {
            this.arrivalNanos = arrivalNanos;
            this.serviceNanos = serviceNanos;
        }
    }
}
