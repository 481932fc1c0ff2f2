package io.github.loombulkhead.benchmarks.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.redis.ClusterBulkhead;
import io.github.loombulkhead.redis.ClusterBulkheads;
import io.github.loombulkhead.redis.ClusterConfig;
import io.github.loombulkhead.redis.ClusterListener;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Measures cluster permits against a loopback {@code redis-server} it starts itself: the latency one call adds (acquire
 * and release, one caller, one process) against a local bulkhead and Redisson's {@code RPermitExpirableSemaphore}; and
 * permits per second under a shared limit at 1, 3 and 10 processes (each a separate Redis client and process id in
 * this JVM), every call holding its permit for 1 ms, with demand twice the limit.
 *
 * <pre>java -cp benchmarks.jar io.github.loombulkhead.benchmarks.cluster.ClusterPermitsBenchmark [calls] [seconds]</pre>
 */
public final class ClusterPermitsBenchmark {

    private static final int LIMIT = 100;

    private ClusterPermitsBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int status = 0;
        try {
            measure(args);
        }
        catch (Throwable ex) {
            ex.printStackTrace();
            status = 1;
        }
        // Lettuce and Redisson leave non-daemon threads behind, also after a failure; redis-server is stopped by now.
        System.exit(status);
    }

    private static void measure(String[] args) throws Exception {
        int calls = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
        int seconds = (args.length > 1) ? Integer.parseInt(args[1]) : 5;
        try (RedisProcess redis = new RedisProcess()) {
            System.out.println("Added latency per call (acquire + release, one caller), " + calls + " calls after as many warm-up calls:");
            System.out.println("| Permit | p50 | p99 |");
            System.out.println("|---|---|---|");
            int idleCalls = Math.max(100, calls / 10);
            int longIdleCalls = Math.max(100, calls / 100);
            row("local bulkhead, back to back", latency(calls, local(), 0));
            row("local bulkhead, 2 ms idle between calls", latency(idleCalls, local(), 2));
            row("local bulkhead, 50 ms idle between calls", latency(longIdleCalls, local(), 50));
            try (Process cluster = new Process(redis.port, "latency-" + UUID.randomUUID(), ClusterConfig.ofDefaults())) {
                row("loom-bulkhead-redis, back to back (the lease stays while in use)", latency(calls, permit(cluster.bulkhead), 0));
                row("loom-bulkhead-redis, 2 ms idle between calls (the lease lingers)",
                        latency(idleCalls, permit(cluster.bulkhead), 2));
                row("loom-bulkhead-redis, 50 ms idle between calls (the lease lingers, idle-linger 1 s)",
                        latency(longIdleCalls, permit(cluster.bulkhead), 50));
            }
            ClusterConfig noLinger = ClusterConfig.custom().idleLinger(Duration.ZERO).build();
            try (Process cluster = new Process(redis.port, "latency-" + UUID.randomUUID(), noLinger)) {
                // Only the round trips of the measured calls: the warm-up calls run back to back.
                row("loom-bulkhead-redis, 50 ms idle between calls, idle-linger 0 (a lease per call)",
                        latency(longIdleCalls, permit(cluster.bulkhead), 50, cluster.roundTrips::clear));
                long[] trips = cluster.roundTrips.stream().mapToLong(Long::longValue).sorted().toArray();
                row("  of which one script call to Redis (acquire or release)", trips);
                System.out.println("  Redis " + cluster.connectionFactory.getConnection().serverCommands().info("commandstats")
                    .getProperty("cmdstat_evalsha"));
            }
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port));
            try (ClusterBulkheads plain = ClusterBulkheads.create(client, "latency-" + UUID.randomUUID())) {
                Bulkhead bulkhead = new Bulkhead("callee", BulkheadConfig.custom()
                    .maxConcurrentCalls(LIMIT)
                    .maxWaitDuration(Duration.ofSeconds(30))
                    .build());
                plain.attach(bulkhead, noLinger);
                row("loom-bulkhead-redis from a Lettuce RedisClient, 50 ms idle, idle-linger 0 (a lease per call)",
                        latency(longIdleCalls, permit(bulkhead), 50));
            }
            finally {
                client.shutdown();
            }
            RedissonClient redisson = redisson(redis.port);
            try {
                RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore("latency-" + UUID.randomUUID());
                semaphore.trySetPermits(LIMIT);
                Call redissonCall = () -> {
                    String id = semaphore.acquire(10, TimeUnit.SECONDS);
                    semaphore.release(id);
                };
                row("Redisson RPermitExpirableSemaphore, back to back", latency(calls, redissonCall, 0));
                row("Redisson RPermitExpirableSemaphore, 2 ms idle between calls", latency(idleCalls, redissonCall, 2));
                row("Redisson RPermitExpirableSemaphore, 50 ms idle between calls", latency(longIdleCalls, redissonCall, 50));
            }
            finally {
                redisson.shutdown();
            }
            if (seconds > 0) {
                permitsPerSecond(redis.port, seconds);
            }
        }
    }

    private static void permitsPerSecond(int port, int seconds) throws Exception {
        System.out.println();
        System.out.println("Permits per second at a shared limit of " + LIMIT + ", 1 ms per call, demand 2x the limit, "
                + seconds + " s each:");
        System.out.println("| Processes | loom-bulkhead-redis permits/s | max in use | Redis script calls/s | Redisson permits/s | max in use |");
        System.out.println("|---|---|---|---|---|---|");
        for (int processes : new int[] { 1, 3, 10 }) {
            Throughput cluster = clusterThroughput(port, processes, seconds);
            Throughput baseline = redissonThroughput(port, processes, seconds);
            System.out.printf(Locale.ROOT, "| %d | %,.0f | %d | %,.0f | %,.0f | %d |%n", processes, cluster.perSecond(),
                    cluster.maxInUse(), cluster.syncsPerSecond(), baseline.perSecond(), baseline.maxInUse());
        }
    }

    private static Call local() {
        Bulkhead bulkhead = new Bulkhead("local", BulkheadConfig.custom().maxConcurrentCalls(LIMIT).build());
        return permit(bulkhead);
    }

    private static Call permit(Bulkhead bulkhead) {
        return () -> {
            bulkhead.acquirePermit();
            bulkhead.onComplete(0);
        };
    }

    private static void row(String name, long[] nanos) {
        System.out.printf(Locale.ROOT, "| %s | %.1f µs | %.1f µs |%n", name, percentile(nanos, 0.50) / 1000.0,
                percentile(nanos, 0.99) / 1000.0);
    }

    private static long[] latency(int calls, Call call, long idleMillis) throws Exception {
        return latency(calls, call, idleMillis, () -> {
        });
    }

    /**
     * Makes {@code calls} warm-up calls back to back, runs {@code afterWarmUp}, then times {@code calls} calls with
     * {@code idleMillis} between them; returns their sorted durations.
     */
    private static long[] latency(int calls, Call call, long idleMillis, Runnable afterWarmUp) throws Exception {
        for (int i = 0; i < calls; i++) {
            call.run();
        }
        afterWarmUp.run();
        long[] nanos = new long[calls];
        for (int i = 0; i < calls; i++) {
            if (idleMillis > 0) {
                Thread.sleep(idleMillis); // idle time between calls, not measured
            }
            long start = System.nanoTime();
            call.run();
            nanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        return nanos;
    }

    private static long percentile(long[] sorted, double quantile) {
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1)];
    }

    private static Throughput clusterThroughput(int port, int count, int seconds) throws Exception {
        String prefix = "throughput-" + UUID.randomUUID();
        List<Process> processes = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                processes.add(new Process(port, prefix, ClusterConfig.ofDefaults()));
            }
            AtomicInteger inUse = new AtomicInteger();
            AtomicInteger maxInUse = new AtomicInteger();
            long syncsBefore = processes.stream().mapToLong((p) -> p.cluster.getRenewalCount()).sum();
            long permits = drive(count, seconds, (process) -> {
                Bulkhead bulkhead = processes.get(process).bulkhead;
                bulkhead.acquirePermit();
                hold(inUse, maxInUse);
                bulkhead.onComplete(1_000_000);
            });
            long syncs = processes.stream().mapToLong((p) -> p.cluster.getRenewalCount()).sum() - syncsBefore;
            return new Throughput((double) permits / seconds, maxInUse.get(), (double) syncs / seconds);
        }
        finally {
            processes.forEach(Process::close);
        }
    }

    private static Throughput redissonThroughput(int port, int count, int seconds) throws Exception {
        String name = "throughput-" + UUID.randomUUID();
        List<RedissonClient> clients = new ArrayList<>();
        List<RPermitExpirableSemaphore> semaphores = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                RedissonClient client = redisson(port);
                clients.add(client);
                semaphores.add(client.getPermitExpirableSemaphore(name));
            }
            semaphores.get(0).trySetPermits(LIMIT);
            AtomicInteger inUse = new AtomicInteger();
            AtomicInteger maxInUse = new AtomicInteger();
            long permits = drive(count, seconds, (process) -> {
                RPermitExpirableSemaphore semaphore = semaphores.get(process);
                String id = semaphore.acquire(10, TimeUnit.SECONDS);
                hold(inUse, maxInUse);
                semaphore.release(id);
            });
            return new Throughput((double) permits / seconds, maxInUse.get(), 0);
        }
        finally {
            clients.forEach(RedissonClient::shutdown);
        }
    }

    /**
     * Runs {@code 2 * LIMIT} callers spread over {@code processes} for {@code seconds}; returns the calls made.
     * @throws ExecutionException the first caller's failure (a Redis error, a permit not granted in time): a caller
     * that stopped early would only lower the figure
     */
    private static long drive(int processes, int seconds, ProcessCall call) throws Exception {
        LongAdder done = new LongAdder();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<Void>> callers = new ArrayList<>();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 2 * LIMIT; i++) {
                int process = i % processes;
                callers.add(executor.submit(() -> {
                    while (System.nanoTime() < end) {
                        call.run(process);
                        done.increment();
                    }
                    return null;
                }));
            }
        }
        for (Future<Void> caller : callers) {
            caller.get();
        }
        return done.sum();
    }

    private static void hold(AtomicInteger inUse, AtomicInteger maxInUse) throws InterruptedException {
        maxInUse.accumulateAndGet(inUse.incrementAndGet(), Math::max);
        Thread.sleep(1); // the call's work
        inUse.decrementAndGet();
    }

    private static RedissonClient redisson(int port) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        return Redisson.create(config);
    }

    @FunctionalInterface
    private interface Call {

        void run() throws Exception;
    }

    @FunctionalInterface
    private interface ProcessCall {

        void run(int process) throws Exception;
    }

    private record Throughput(double perSecond, int maxInUse, double syncsPerSecond) {
    }

    /** One caller process: its own Redis connection, process id and bulkhead. */
    private static final class Process implements AutoCloseable {

        final LettuceConnectionFactory connectionFactory;

        final ClusterBulkheads bulkheads;

        final Bulkhead bulkhead;

        final ClusterBulkhead cluster;

        final java.util.concurrent.ConcurrentLinkedQueue<Long> roundTrips = new java.util.concurrent.ConcurrentLinkedQueue<>();

        Process(int port, String prefix, ClusterConfig config) {
            this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
            this.connectionFactory.afterPropertiesSet();
            this.connectionFactory.start();
            this.bulkheads = ClusterBulkheads.create(this.connectionFactory, prefix, new ClusterListener() {
                @Override
                public void onRoundTrip(ClusterBulkhead cluster, long nanos, RuntimeException error) {
                    Process.this.roundTrips.add(nanos);
                }
            });
            this.bulkhead = new Bulkhead("callee", BulkheadConfig.custom()
                .maxConcurrentCalls(LIMIT)
                .maxWaitDuration(Duration.ofSeconds(30))
                .build());
            this.cluster = this.bulkheads.attach(this.bulkhead, config);
        }

        @Override
        public void close() {
            this.bulkheads.close();
            this.connectionFactory.destroy();
        }
    }
}
