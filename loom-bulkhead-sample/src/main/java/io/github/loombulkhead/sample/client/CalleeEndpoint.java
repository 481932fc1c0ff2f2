package io.github.loombulkhead.sample.client;

import java.net.URI;

import io.github.loombulkhead.sample.launch.ManagedCallee;
import org.jspecify.annotations.Nullable;

/** Where the callee listens: a process this caller started (and stops on close), or one already running. */
public final class CalleeEndpoint implements AutoCloseable {

    private final URI baseUrl;

    private final @Nullable ManagedCallee managed;

    private CalleeEndpoint(URI baseUrl, @Nullable ManagedCallee managed) {
        this.baseUrl = baseUrl;
        this.managed = managed;
    }

    /** A callee started by this caller. */
    public static CalleeEndpoint managed(ManagedCallee callee) {
        return new CalleeEndpoint(callee.baseUrl(), callee);
    }

    /** A callee that runs elsewhere, e.g. {@code http://localhost:8081}. */
    public static CalleeEndpoint external(URI baseUrl) {
        return new CalleeEndpoint(baseUrl, null);
    }

    public URI baseUrl() {
        return this.baseUrl;
    }

    /** The callee process this caller started, or {@code null} for an external one. */
    public @Nullable ManagedCallee managed() {
        return this.managed;
    }

    @Override
    public void close() {
        if (this.managed != null) {
            this.managed.close();
        }
    }
}
