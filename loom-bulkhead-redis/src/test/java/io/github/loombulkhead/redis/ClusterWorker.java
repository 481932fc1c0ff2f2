package io.github.loombulkhead.redis;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One caller process of {@link ClusterProcessesTest}: {@code calls} calls to the loopback callee, {@code concurrency}
 * at a time, each bounded by the cluster bulkhead. Prints its process id, progress every 100 ms and its totals.
 * Arguments: redis port, callee port, key prefix, limit, calls, concurrency, lease millis.
 */
public final class ClusterWorker {

    private ClusterWorker() {
    }

    public static void main(String[] args) throws Exception {
        int redisPort = Integer.parseInt(args[0]);
        int calleePort = Integer.parseInt(args[1]);
        String prefix = args[2];
        int limit = Integer.parseInt(args[3]);
        int calls = Integer.parseInt(args[4]);
        int concurrency = Integer.parseInt(args[5]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[6]));
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redisPort),
                LettuceClientConfiguration.builder()
                    .commandTimeout(Duration.ofMillis(500))
                    .clientOptions(ClientOptions.builder()
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                        .timeoutOptions(TimeoutOptions.enabled(Duration.ofMillis(500)))
                        .build())
                    .build());
        factory.afterPropertiesSet();
        factory.start();
        ClusterBulkheads cluster = ClusterBulkheads.create(factory, prefix);
        Bulkhead bulkhead = BulkheadRegistry.ofDefaults()
            .bulkhead("callee", BulkheadConfig.custom().maxConcurrentCalls(limit).maxWaitDuration(Duration.ofSeconds(30)).build());
        cluster.attach(bulkhead, ClusterConfig.custom().leaseDuration(lease).build());
        System.out.println("PROCESS " + cluster.getProcessId());
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + calleePort + "/call")).build();
        AtomicInteger next = new AtomicInteger();
        LongAdder succeeded = new LongAdder();
        LongAdder failed = new LongAdder();
        LongAdder[] rejected = new LongAdder[RejectionReason.values().length];
        for (int i = 0; i < rejected.length; i++) {
            rejected[i] = new LongAdder();
        }
        Thread progress = Thread.ofPlatform().daemon().start(() -> {
            while (true) {
                System.out.println("PROGRESS " + succeeded.sum() + " " + failed.sum() + " " + sum(rejected) + " "
                        + bulkhead.getActiveCount() + " " + bulkhead.getWaitingCount());
                try {
                    Thread.sleep(100);
                }
                catch (InterruptedException ex) {
                    return;
                }
            }
        });
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < concurrency; c++) {
                callers.submit(() -> {
                    while (next.getAndIncrement() < calls) {
                        try {
                            bulkhead.acquirePermit();
                        }
                        catch (BulkheadRejectedException ex) {
                            rejected[ex.getReason().ordinal()].increment();
                            continue;
                        }
                        long start = System.nanoTime();
                        try {
                            http.send(request, HttpResponse.BodyHandlers.discarding());
                            succeeded.increment();
                        }
                        catch (IOException | InterruptedException ex) {
                            failed.increment();
                        }
                        finally {
                            bulkhead.onComplete(System.nanoTime() - start);
                        }
                    }
                    return null;
                });
            }
        }
        progress.interrupt();
        StringBuilder reasons = new StringBuilder();
        for (RejectionReason reason : RejectionReason.values()) {
            reasons.append(' ').append(reason.tag()).append('=').append(rejected[reason.ordinal()].sum());
        }
        System.out.println("DONE " + succeeded.sum() + " " + failed.sum() + " " + sum(rejected) + reasons);
        cluster.close();
        factory.destroy();
        System.exit(0);
    }

    private static long sum(LongAdder[] adders) {
        long total = 0;
        for (LongAdder adder : adders) {
            total += adder.sum();
        }
        return total;
    }
}
