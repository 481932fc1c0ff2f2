package io.github.loombulkhead.redis;

import java.time.Duration;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** One caller process inside the test JVM: its own registry, Redis connections and process id. */
final class Replica implements AutoCloseable {

    final LettuceConnectionFactory connectionFactory;

    final ClusterBulkheads cluster;

    final Bulkhead bulkhead;

    final ClusterBulkhead clusterBulkhead;

    Replica(RedisServer redis, String prefix, String name, int limit, ClusterConfig config) {
        this.connectionFactory = redis.connectionFactory();
        this.cluster = ClusterBulkheads.create(this.connectionFactory, prefix);
        this.bulkhead = BulkheadRegistry.ofDefaults().bulkhead(name, BulkheadConfig.custom()
            .maxConcurrentCalls(limit)
            .maxWaitDuration(Duration.ofSeconds(30))
            .build());
        this.clusterBulkhead = this.cluster.attach(this.bulkhead, config);
    }

    /** Stops renewing without giving anything back, as a process that was killed. */
    void die() {
        close();
    }

    @Override
    public void close() {
        this.cluster.close();
        this.connectionFactory.destroy();
    }
}
