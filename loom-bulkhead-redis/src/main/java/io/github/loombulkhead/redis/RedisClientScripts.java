package io.github.loombulkhead.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * Scripts on a connection of its own from a Lettuce {@link RedisClient}, opened at the first script and
 * reconnected by Lettuce after that; a failed first connect fails that script and is tried again at the next. Only the
 * governor opens it: a caller runs a script only after the first one succeeded.
 */
final class RedisClientScripts implements ScriptRunner {

    private final RedisClient client;

    private final ReentrantLock connecting = new ReentrantLock();

    private volatile StatefulRedisConnection<byte[], byte[]> connection;

    private volatile boolean closed;

    RedisClientScripts(RedisClient client) {
        this.client = client;
    }

    @Override
    public CompletableFuture<Object> run(LeaseScript script, List<String> keys, List<String> args) {
        try {
            return ScriptRunner.evalSha(connection().async(), script, keys, args);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    private StatefulRedisConnection<byte[], byte[]> connection() {
        StatefulRedisConnection<byte[], byte[]> open = this.connection;
        if (open != null) {
            return open;
        }
        this.connecting.lock();
        try {
            if (this.closed) {
                throw new IllegalStateException("cluster bulkheads were closed");
            }
            if (this.connection == null) {
                this.connection = this.client.connect(ByteArrayCodec.INSTANCE);
            }
            return this.connection;
        }
        finally {
            this.connecting.unlock();
        }
    }

    @Override
    public boolean async() {
        return true;
    }

    @Override
    public long timeoutMillis() {
        StatefulRedisConnection<byte[], byte[]> open = this.connection;
        return ((open != null) ? open.getTimeout() : RedisURI.DEFAULT_TIMEOUT_DURATION).toMillis();
    }

    @Override
    public void close() {
        this.connecting.lock();
        try {
            this.closed = true;
            if (this.connection != null) {
                this.connection.close();
            }
        }
        finally {
            this.connecting.unlock();
        }
    }
}
