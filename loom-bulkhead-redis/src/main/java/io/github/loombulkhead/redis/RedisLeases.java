package io.github.loombulkhead.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The leases of one cluster bulkhead in Redis, changed only by server-side scripts that read Redis's own clock
 * ({@code TIME}), so the clocks of the processes never matter.
 */
final class RedisLeases {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> SYNC = script("sync.lua", List.class);

    private static final RedisScript<Long> INIT = script("init.lua", Long.class);

    private static final RedisScript<Long> CHANGE_LIMIT = script("change-limit.lua", Long.class);

    private final StringRedisTemplate redis;

    private final LeaseKeys keys;

    private final String process;

    private final String leaseMillis;

    RedisLeases(StringRedisTemplate redis, LeaseKeys keys, String process, ClusterConfig config) {
        this.redis = redis;
        this.keys = keys;
        this.process = process;
        this.leaseMillis = Long.toString(config.getLeaseDuration().toMillis());
    }

    /** The script's text is read once: a resource would be looked up again on every call to check for changes. */
    private static <T> RedisScript<T> script(String name, Class<T> type) {
        try (InputStream in = RedisLeases.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing script " + name + " next to " + RedisLeases.class.getName());
            }
            return RedisScript.of(new String(in.readAllBytes(), StandardCharsets.UTF_8), type);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot read script " + name, ex);
        }
    }

    /** Applies a configured limit that differs from the one last configured; returns the limit in force. */
    int init(int configuredLimit) {
        Long limit = this.redis.execute(INIT, List.of(this.keys.limit(), this.keys.configured()),
                Integer.toString(configuredLimit));
        return limit.intValue();
    }

    /**
     * Keeps {@code keep} leases (giving the rest back, or claiming more after Redis lost them), asks for {@code want}
     * more, renews them all, and returns the leases held now.
     */
    LeaseState sync(int keep, int want, int limitIfUnset) {
        List<?> reply = this.redis.execute(SYNC, this.keys.sync(), this.process, Integer.toString(keep),
                Integer.toString(want), this.leaseMillis, Integer.toString(limitIfUnset), this.keys.channel());
        return LeaseState.of(reply);
    }

    /** Sets the cluster-wide limit and wakes every process. */
    void changeLimit(int limit) {
        this.redis.execute(CHANGE_LIMIT, List.of(this.keys.limit()), Integer.toString(limit), this.keys.channel());
    }

    String channel() {
        return this.keys.channel();
    }

    String process() {
        return this.process;
    }
}
