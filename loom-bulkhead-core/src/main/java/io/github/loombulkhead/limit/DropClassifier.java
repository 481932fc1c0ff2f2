package io.github.loombulkhead.limit;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * Decides whether a failed call is an overload signal ({@link Outcome#DROPPED}) for an adaptive
 * limit: its exception, or one of its causes, is one of the configured types. The defaults are
 * timeouts, refused connections and the callee's own overload answers: {@link TimeoutException}, {@link InterruptedIOException}
 * (socket, connect and HTTP client read timeouts), {@link ConnectException}, {@code java.net.http}'s
 * {@code HttpTimeoutException}, and Spring Web's {@code 503 Service Unavailable} and
 * {@code 429 Too Many Requests} exceptions. Any other failure is a {@link Outcome#SUCCESS}: the
 * callee answered.
 */
public final class DropClassifier {

    private static final Set<String> DEFAULT_NAMES = Set.of("java.net.http.HttpTimeoutException",
            "org.springframework.web.client.HttpServerErrorException$ServiceUnavailable",
            "org.springframework.web.client.HttpClientErrorException$TooManyRequests");

    private static final DropClassifier DEFAULTS = new DropClassifier(
            List.of(TimeoutException.class, InterruptedIOException.class, ConnectException.class), DEFAULT_NAMES);

    private final List<Class<? extends Throwable>> types;

    private final Set<String> typeNames;

    private DropClassifier(List<Class<? extends Throwable>> types, Set<String> typeNames) {
        this.types = List.copyOf(types);
        this.typeNames = typeNames;
    }

    /** The default drops described on this class. */
    public static DropClassifier ofDefaults() {
        return DEFAULTS;
    }

    /** Drops are exactly the given types (and their subclasses), as the exception or a cause. */
    public static DropClassifier of(List<Class<? extends Throwable>> types) {
        Objects.requireNonNull(types, "types must not be null");
        return new DropClassifier(types, Set.of());
    }

    /** The outcome of a call that ended with {@code failure}; {@code null} means it succeeded. */
    public Outcome classify(Throwable failure) {
        int depth = 0;
        for (Throwable current = failure; current != null && depth < 16; current = current.getCause(), depth++) {
            if (matches(current)) {
                return Outcome.DROPPED;
            }
        }
        return Outcome.SUCCESS;
    }

    private boolean matches(Throwable failure) {
        for (Class<? extends Throwable> type : this.types) {
            if (type.isInstance(failure)) {
                return true;
            }
        }
        if (!this.typeNames.isEmpty()) {
            for (Class<?> type = failure.getClass(); type != null; type = type.getSuperclass()) {
                if (this.typeNames.contains(type.getName())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Equal when it names the same types, in any order. */
    @Override
    public boolean equals(Object other) {
        return this == other || (other instanceof DropClassifier that
                && Set.copyOf(this.types).equals(Set.copyOf(that.types)) && this.typeNames.equals(that.typeNames));
    }

    @Override
    public int hashCode() {
        return Objects.hash(Set.copyOf(this.types), this.typeNames);
    }

    @Override
    public String toString() {
        return "DropClassifier" + this.types + ((this.typeNames.isEmpty()) ? "" : " + " + this.typeNames);
    }
}
