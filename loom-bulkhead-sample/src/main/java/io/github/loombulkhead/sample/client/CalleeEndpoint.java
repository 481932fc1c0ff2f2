package io.github.loombulkhead.sample.client;

import java.net.URI;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.github.loombulkhead.sample.launch.ManagedCallee;
import org.jspecify.annotations.Nullable;

/**
 * Where the callee listens: a process this caller starts (and stops on close), or one already running. A
 * managed callee is started once the application context is up ({@link CalleeStarter}), so a callee that
 * cannot start fails the run like any other startup step, with its own message and exit code.
 */
public final class CalleeEndpoint implements AutoCloseable {

    private final @Nullable Supplier<ManagedCallee> starter;

    private final ReentrantLock lock = new ReentrantLock();

    private volatile @Nullable URI baseUrl;

    private volatile @Nullable ManagedCallee managed;

    private CalleeEndpoint(@Nullable URI baseUrl, @Nullable Supplier<ManagedCallee> starter) {
        this.baseUrl = baseUrl;
        this.starter = starter;
    }

    /** A callee this caller starts with {@code starter} when {@link #start()} is called. */
    public static CalleeEndpoint managed(Supplier<ManagedCallee> starter) {
        return new CalleeEndpoint(null, starter);
    }

    /** A callee that runs elsewhere, e.g. {@code http://localhost:8081}. */
    public static CalleeEndpoint external(URI baseUrl) {
        return new CalleeEndpoint(baseUrl, null);
    }

    /** Starts the managed callee and waits until it answers; does nothing for an external or started one. */
    public void start() {
        this.lock.lock();
        try {
            if (this.starter != null && this.managed == null) {
                ManagedCallee callee = this.starter.get();
                this.managed = callee;
                this.baseUrl = callee.baseUrl();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Base URL of the callee. */
    public URI baseUrl() {
        URI url = this.baseUrl;
        if (url == null) {
            throw new IllegalStateException("The callee has not been started yet");
        }
        return url;
    }

    /** The callee process this caller started, or {@code null} for an external one or before the start. */
    public @Nullable ManagedCallee managed() {
        return this.managed;
    }

    @Override
    public void close() {
        ManagedCallee callee = this.managed;
        if (callee != null) {
            callee.close();
        }
    }
}
