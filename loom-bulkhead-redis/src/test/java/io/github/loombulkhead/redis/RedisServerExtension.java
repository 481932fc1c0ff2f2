package io.github.loombulkhead.redis;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one {@link RedisServer} per test class (in the class's store, so it is stopped when the class is done) and
 * passes it to tests and lifecycle methods that ask for it.
 */
public final class RedisServerExtension implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == RedisServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext.Store store = context.getRoot().getStore(ExtensionContext.Namespace.create(RedisServerExtension.class,
                context.getRequiredTestClass()));
        return store.getOrComputeIfAbsent("server", (key) -> new Closing(RedisServer.start()), Closing.class).server();
    }

    /** Stops the server when JUnit closes the store. */
    private record Closing(RedisServer server) implements AutoCloseable {

        @Override
        public void close() {
            this.server.stop();
        }
    }
}
