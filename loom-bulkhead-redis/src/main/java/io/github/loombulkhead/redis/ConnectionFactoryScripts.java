package io.github.loombulkhead.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;

import org.springframework.dao.NonTransientDataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Scripts through a Spring Data Redis {@link RedisConnectionFactory}: with Lettuce, asynchronously on the native
 * connection the factory hands out (the shared one by default), so no template and no waiting thread sit between
 * a caller and Redis; with any other driver, synchronously through the connection's scripting commands.
 */
final class ConnectionFactoryScripts implements ScriptRunner {

    /** Spring Data Redis's default command timeout when the factory does not say. */
    private static final long DEFAULT_TIMEOUT_MILLIS = 60_000;

    private final RedisConnectionFactory connectionFactory;

    private final boolean lettuce;

    private final long timeoutMillis;

    ConnectionFactoryScripts(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = connectionFactory;
        this.lettuce = connectionFactory instanceof LettuceConnectionFactory;
        this.timeoutMillis = (connectionFactory instanceof LettuceConnectionFactory factory) ? factory.getTimeout()
                : DEFAULT_TIMEOUT_MILLIS;
    }

    @Override
    public CompletableFuture<Object> run(LeaseScript script, List<String> keys, List<String> args) {
        RedisConnection connection;
        try {
            connection = this.connectionFactory.getConnection();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        if (this.lettuce && connection.getNativeConnection() instanceof RedisScriptingAsyncCommands<?, ?> commands) {
            @SuppressWarnings("unchecked")
            RedisScriptingAsyncCommands<byte[], byte[]> bytes = (RedisScriptingAsyncCommands<byte[], byte[]>) commands;
            CompletableFuture<Object> reply;
            try {
                reply = ScriptRunner.evalSha(bytes, script, keys, args);
            }
            catch (RuntimeException ex) {
                connection.close();
                return CompletableFuture.failedFuture(ex);
            }
            // A dedicated (pooled) connection goes back once Redis replied; closing a shared one does nothing.
            return reply.whenComplete((result, failure) -> connection.close());
        }
        try {
            return CompletableFuture.completedFuture(runBlocking(connection, script, keys, args));
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        finally {
            connection.close();
        }
    }

    private static Object runBlocking(RedisConnection connection, LeaseScript script, List<String> keys,
            List<String> args) {
        byte[][] keysAndArgs = new byte[keys.size() + args.size()][];
        int i = 0;
        for (String key : keys) {
            keysAndArgs[i++] = key.getBytes(StandardCharsets.UTF_8);
        }
        for (String arg : args) {
            keysAndArgs[i++] = arg.getBytes(StandardCharsets.UTF_8);
        }
        ReturnType type = script.list() ? ReturnType.MULTI : ReturnType.INTEGER;
        try {
            return connection.scriptingCommands().evalSha(script.sha1(), type, keys.size(), keysAndArgs);
        }
        catch (NonTransientDataAccessException ex) {
            if (ex.getMessage() == null || !ex.getMessage().contains("NOSCRIPT")) {
                throw ex;
            }
            return connection.scriptingCommands()
                .eval(script.text().getBytes(StandardCharsets.UTF_8), type, keys.size(), keysAndArgs);
        }
    }

    @Override
    public boolean async() {
        return this.lettuce;
    }

    @Override
    public long timeoutMillis() {
        return this.timeoutMillis;
    }

    @Override
    public void close() {
        // The factory belongs to the application.
    }
}
