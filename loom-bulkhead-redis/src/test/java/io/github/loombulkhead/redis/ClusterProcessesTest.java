package io.github.loombulkhead.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three caller JVMs share a limit of 30 at a loopback callee that counts calls in flight: one is killed with SIGKILL
 * while it holds permits, Redis is restarted once, and the limit is raised to 40 at runtime. Nothing may exceed the
 * bound and every call of the surviving JVMs is accounted for.
 */
class ClusterProcessesTest {

    static final int CALLS_PER_PROCESS = 33_334;

    static final int CONCURRENCY = 45;

    static final long LEASE_MILLIS = 1000;

    private final List<Worker> workers = new ArrayList<>();

    private RedisServer redis;

    private volatile int underDemand;

    private volatile int nearLimit;

    @AfterEach
    void stop() {
        // Only the processes started here.
        this.workers.forEach((worker) -> worker.process.destroyForcibly());
        if (this.redis != null) {
            this.redis.stop();
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void threeJvmsKeepTheBoundThroughAKillARedisRestartAndALimitChange() throws Exception {
        this.redis = RedisServer.start();
        String prefix = "processes-" + UUID.randomUUID();
        try (CountingCallee callee = new CountingCallee(30, 5)) {
            for (int i = 0; i < 3; i++) {
                this.workers.add(Worker.start(this.redis.port(), callee.port(), prefix));
            }
            for (Worker worker : this.workers) {
                await().atMost(Duration.ofSeconds(60)).until(() -> worker.id != null || !worker.process.isAlive());
                assertThat(worker.id).as("process id printed by the worker").isNotNull();
            }
            long total = 3L * CALLS_PER_PROCESS;
            Thread timeline = Thread.ofPlatform().daemon().start(() -> {
                int tick = 0;
                while (!Thread.currentThread().isInterrupted()) {
                    int active = 0;
                    int waiting = 0;
                    for (Worker worker : this.workers) {
                        if (worker.process.isAlive() && worker.done == null) {
                            active += worker.active;
                            waiting += worker.waiting;
                        }
                    }
                    if (waiting >= callee.bound.get() / 2) {
                        // Demand is at least 1.5 times the limit: count how often the permits in use reach 90 %.
                        this.underDemand++;
                        if (active * 10 >= callee.bound.get() * 9) {
                            this.nearLimit++;
                        }
                    }
                    if (tick++ % 10 != 0) {
                        sleepMillis(100);
                        continue;
                    }
                    StringBuilder line = new StringBuilder("TIMELINE ").append(callee.millis()).append(" inFlight=")
                        .append(callee.inFlight.get());
                    for (Worker worker : this.workers) {
                        line.append(" [").append(worker.succeeded).append(' ').append(worker.active).append(' ')
                            .append(worker.waiting).append(']');
                    }
                    System.out.println(line);
                    sleepMillis(100);
                }
            });
            Worker victim = this.workers.get(2);
            await().atMost(Duration.ofSeconds(60)).until(() -> progress() > total / 6 && victim.succeeded > 1000 && victim.active > 0);

            // kill -9 while it holds permits: they come back within the lease + 1 s.
            String held = prefix + ":{callee}:held";
            long killedAt = System.nanoTime();
            int killedMs = callee.millis();
            victim.process.destroyForcibly();
            victim.process.waitFor(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofMillis(LEASE_MILLIS + 1000)).pollInterval(Duration.ofMillis(20))
                .until(() -> this.redis.command("HEXISTS " + held + " " + victim.id).equals(":0"));
            long backMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            long victimSucceeded = victim.succeeded;
            int victimActive = victim.active;

            await().atMost(Duration.ofSeconds(60)).until(() -> progress() > total * 2 / 5);
            // Redis goes away for a second and comes back empty.
            this.redis.stop();
            long outage = System.nanoTime();
            int outageMs = callee.millis();
            await().atMost(Duration.ofSeconds(5)).pollDelay(Duration.ofSeconds(1)).until(() -> true);
            this.redis.restart();
            long outageMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - outage);

            await().atMost(Duration.ofSeconds(60)).until(() -> progress() > total * 3 / 5);
            // The limit is raised at runtime, as an Actuator write in one process would.
            int raisedMs = callee.millis();
            callee.bound.set(40);
            assertThat(this.redis.command("SET " + prefix + ":{callee}:limit 40")).isEqualTo("+OK");
            this.redis.command("PUBLISH " + prefix + ":{callee}:released limit");

            List<Worker> survivors = this.workers.subList(0, 2);
            for (Worker worker : survivors) {
                assertThat(worker.process.waitFor(100, TimeUnit.SECONDS)).isTrue();
                worker.output.get(10, TimeUnit.SECONDS);
            }
            long survivorsSucceeded = 0;
            for (Worker worker : survivors) {
                assertThat(worker.done).as("totals of %s", worker.id).isNotNull();
                // Every call accounted for: succeeded, failed or rejected with a reason.
                assertThat(worker.doneSucceeded + worker.doneFailed + worker.doneRejected).isEqualTo(CALLS_PER_PROCESS);
                assertThat(worker.doneFailed).isZero();
                survivorsSucceeded += worker.doneSucceeded;
            }
            System.out.println("EVENTS killed=" + killedMs + " outage=" + outageMs + " raised=" + raisedMs + " violations="
                    + callee.violationTimes.stream().map((v) -> v[0] + ":" + v[1]).toList());
            assertThat(callee.violations).as("calls above the bound").hasValue(0);
            assertThat(callee.maxInFlight.get()).isBetween(30, 40);
            assertThat(backMillis).isLessThanOrEqualTo(LEASE_MILLIS + 1000);
            // The killed JVM's calls that reached the callee: at least those it reported.
            assertThat(callee.received.get() - survivorsSucceeded).isGreaterThanOrEqualTo(victimSucceeded);
            System.out.println("CLUSTER-PROCESSES calls=" + callee.received.get() + " survivorsSucceeded="
                    + survivorsSucceeded + " victimReported=" + victimSucceeded + " victimActiveWhenKilled=" + victimActive + " maxInFlight=" + callee.maxInFlight
                    + " violations=" + callee.violations + " deadPermitsBackMs=" + backMillis + " outageMs="
                    + outageMillis + " calleeSamplesAtLeast27=" + atLeast(callee, 27) + " permitsInUseAtLeast90Percent="
                    + this.nearLimit + "/" + this.underDemand);
        }
    }

    /** The share of in-flight samples at or above {@code count}, while all callers still had calls to make. */
    private static String atLeast(CountingCallee callee, int count) {
        List<int[]> samples = new ArrayList<>(callee.samples);
        // The tail, where callers run out of calls, is not under full demand.
        int steady = samples.size() * 9 / 10;
        long high = samples.subList(0, steady).stream().filter((sample) -> sample[1] >= count).count();
        return String.format("%.3f", (double) high / Math.max(1, steady));
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis); // the sampling period
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private long progress() {
        long total = 0;
        for (Worker worker : this.workers) {
            total += worker.succeeded + worker.rejected;
        }
        return total;
    }

    /** One caller JVM and what it printed. */
    static final class Worker {

        final Process process;

        final CompletableFuture<Void> output;

        volatile String id;

        volatile long succeeded;

        volatile long rejected;

        volatile int active;

        volatile int waiting;

        volatile String done;

        volatile long doneSucceeded;

        volatile long doneFailed;

        volatile long doneRejected;

        private Worker(Process process) {
            this.process = process;
            this.output = CompletableFuture.runAsync(this::read, (task) -> Thread.ofPlatform().daemon().start(task));
        }

        static Worker start(int redisPort, int calleePort, String prefix) throws IOException {
            String java = ProcessHandle.current().info().command().orElse("java");
            Process process = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-cp", System.getProperty("java.class.path"), ClusterWorker.class.getName(),
                    Integer.toString(redisPort), Integer.toString(calleePort), prefix, "30",
                    Integer.toString(CALLS_PER_PROCESS), Integer.toString(CONCURRENCY), Long.toString(LEASE_MILLIS))
                .redirectErrorStream(true)
                .start();
            return new Worker(process);
        }

        private void read() {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    String[] parts = line.split(" ");
                    switch (parts[0]) {
                        case "PROCESS" -> this.id = parts[1];
                        case "PROGRESS" -> {
                            this.succeeded = Long.parseLong(parts[1]);
                            this.rejected = Long.parseLong(parts[3]);
                            this.active = Integer.parseInt(parts[4]);
                            this.waiting = Integer.parseInt(parts[5]);
                        }
                        case "DONE" -> {
                            this.doneSucceeded = Long.parseLong(parts[1]);
                            this.doneFailed = Long.parseLong(parts[2]);
                            this.doneRejected = Long.parseLong(parts[3]);
                            this.succeeded = this.doneSucceeded;
                            this.done = line;
                        }
                        default -> System.out.println("worker: " + line);
                    }
                }
            }
            catch (IOException ex) {
                // The process was killed.
            }
        }
    }
}
