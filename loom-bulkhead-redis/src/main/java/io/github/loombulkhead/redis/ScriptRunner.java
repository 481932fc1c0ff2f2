package io.github.loombulkhead.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;

/**
 * Runs the lease scripts in Redis. {@link #run} returns at once when the runner is {@link #async()}: the reply
 * completes the future on the client's I/O thread, so a caller can ask for a lease without waiting for a thread
 * of its own to wake.
 */
interface ScriptRunner extends AutoCloseable {

    /** Runs {@code script} ({@code EVALSHA}, loading it with {@code EVAL} when Redis does not know it yet). */
    CompletableFuture<Object> run(LeaseScript script, List<String> keys, List<String> args);

    /** Whether {@link #run} returns before Redis replies. */
    boolean async();

    /** How long to wait for a reply before Redis counts as unreachable. */
    long timeoutMillis();

    /** Runs {@code script} and waits for the reply, at most {@link #timeoutMillis()}. */
    default Object await(LeaseScript script, List<String> keys, List<String> args) {
        return await(script, keys, args, timeoutMillis());
    }

    /**
     * Runs {@code script} and waits for the reply, at most {@code waitMillis} (a runner that is not {@link #async()}
     * replies only after its own timeout).
     */
    default Object await(LeaseScript script, List<String> keys, List<String> args, long waitMillis) {
        CompletableFuture<Object> reply = run(script, keys, args);
        try {
            return reply.get(waitMillis, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Redis", ex);
        }
        catch (TimeoutException ex) {
            throw new IllegalStateException("no reply from Redis within " + waitMillis + " ms", ex);
        }
        catch (ExecutionException ex) {
            throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex.getCause());
        }
    }

    @Override
    void close();

    /** Runs {@code script} through Lettuce's asynchronous commands, {@code EVAL} after a {@code NOSCRIPT} reply. */
    static CompletableFuture<Object> evalSha(RedisScriptingAsyncCommands<byte[], byte[]> commands, LeaseScript script,
            List<String> keys, List<String> args) {
        byte[][] keyBytes = bytes(keys);
        byte[][] argBytes = bytes(args);
        ScriptOutputType type = script.list() ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
        RedisFuture<Object> sent = commands.evalsha(script.sha1(), type, keyBytes, argBytes);
        return sent.toCompletableFuture().exceptionallyCompose((failure) -> {
            Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
            if (cause instanceof RedisNoScriptException) {
                RedisFuture<Object> loaded = commands.eval(script.text(), type, keyBytes, argBytes);
                return loaded.toCompletableFuture();
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    private static byte[][] bytes(List<String> values) {
        byte[][] bytes = new byte[values.size()][];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
        }
        return bytes;
    }
}
