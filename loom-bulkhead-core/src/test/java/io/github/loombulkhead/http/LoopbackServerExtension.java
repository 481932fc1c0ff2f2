package io.github.loombulkhead.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Parameter;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts a {@link LoopbackServer} or {@link ResettingServer} for a parameter of that type and closes it when the
 * scope that asked for it ends: a parameter of a {@code @BeforeAll} method gives one server to the whole class, a
 * parameter of a {@code @BeforeEach} or test method one server to that test. Within a scope, parameters of the
 * same name are the same server: {@code @BeforeEach void setUp(LoopbackServer server)} and
 * {@code @Test void call(LoopbackServer server)} share one, {@code (LoopbackServer server, LoopbackServer other)}
 * are two.
 */
public final class LoopbackServerExtension implements ParameterResolver {

    private static final Namespace NAMESPACE = Namespace.create(LoopbackServerExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == LoopbackServer.class || type == ResettingServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Parameter declared = parameter.getParameter();
        if (!declared.isNamePresent()) {
            throw new ParameterResolutionException("Servers are told apart by parameter name, but "
                    + parameter.getDeclaringExecutable() + " was compiled without them: compile the tests with "
                    + "javac -parameters (the build does)");
        }
        Class<?> type = declared.getType();
        // Found in this scope or an enclosing one; the store closes it after the scope's @AfterEach or @AfterAll.
        return context.getStore(NAMESPACE)
            .computeIfAbsent(type.getName() + " " + declared.getName(), (key) -> start(type));
    }

    private static AutoCloseable start(Class<?> type) {
        try {
            return (type == LoopbackServer.class) ? LoopbackServer.start() : ResettingServer.start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start a " + type.getSimpleName() + " on loopback", ex);
        }
    }
}
