package io.github.loombulkhead.limit;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
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
 * {@code 429 Too Many Requests} exceptions. A call that never reached the callee is no sample
 * ({@link Outcome#IGNORED}), whatever the types: an unknown host, and a pooled connection not leased in time
 * (HttpClient 5's {@code ConnectionRequestTimeoutException}, an {@link InterruptedIOException} that a timeout
 * type would otherwise match), as the exception or a cause ({@link #neverSent}). Any other failure is a
 * {@link Outcome#SUCCESS}: the callee answered.
 */
public final class DropClassifier {

    private static final Set<String> DEFAULT_NAMES = Set.of("java.net.http.HttpTimeoutException",
            "org.springframework.web.client.HttpServerErrorException$ServiceUnavailable",
            "org.springframework.web.client.HttpClientErrorException$TooManyRequests");

    /** Failures, by name for clients that may be absent, of a call that never left the caller. */
    private static final Set<String> NOT_SENT_NAMES = Set.of("org.apache.hc.core5.http.ConnectionRequestTimeoutException");

    /** How deep the cause chain is searched. */
    private static final int MAX_CAUSES = 16;

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

    /**
     * The outcome of a call that ended with {@code failure} ({@code null}: it succeeded): {@link Outcome#IGNORED}
     * when it never reached the callee, {@link Outcome#DROPPED} when it or a cause is of a configured type,
     * otherwise {@link Outcome#SUCCESS}.
     */
    public Outcome classify(Throwable failure) {
        if (neverSent(failure)) {
            return Outcome.IGNORED;
        }
        int depth = 0;
        for (Throwable current = failure; current != null && depth < MAX_CAUSES; current = current.getCause(), depth++) {
            if (matches(current)) {
                return Outcome.DROPPED;
            }
        }
        return Outcome.SUCCESS;
    }

    /**
     * Whether {@code failure} (or one of its causes) says the call never left the caller, so that it tells nothing
     * about the callee: an unknown host ({@link UnknownHostException}, {@link UnresolvedAddressException}) or no
     * pooled connection leased in time (HttpClient 5's {@code ConnectionRequestTimeoutException}).
     */
    public static boolean neverSent(Throwable failure) {
        int depth = 0;
        for (Throwable current = failure; current != null && depth < MAX_CAUSES; current = current.getCause(), depth++) {
            if (current instanceof UnknownHostException || current instanceof UnresolvedAddressException
                    || isNamed(current, NOT_SENT_NAMES)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code failure}'s class or one of its superclasses has one of {@code names}. */
    private static boolean isNamed(Throwable failure, Set<String> names) {
        for (Class<?> type = failure.getClass(); type != null; type = type.getSuperclass()) {
            if (names.contains(type.getName())) {
                return true;
            }
        }
        return false;
    }

    private boolean matches(Throwable failure) {
        for (Class<? extends Throwable> type : this.types) {
            if (type.isInstance(failure)) {
                return true;
            }
        }
        return !this.typeNames.isEmpty() && isNamed(failure, this.typeNames);
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
