package io.github.loombulkhead.sample.launch;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A JVM the sample started, stopped by {@link #close()} and by a shutdown hook should the sample be stopped
 * first: asked to end, given {@code grace} to do so, then killed.
 */
public final class ChildProcess implements AutoCloseable {

    private final Process process;

    private final Duration grace;

    private final Thread shutdownHook;

    /** Watches {@code process}; {@code name} names the shutdown hook's thread. */
    public ChildProcess(Process process, String name, Duration grace) {
        this.process = process;
        this.grace = grace;
        this.shutdownHook = new Thread(this::stop, name + "-stopper");
        Runtime.getRuntime().addShutdownHook(this.shutdownHook);
    }

    /** Stops the process and waits for it to end. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
        }
        catch (IllegalStateException ex) {
            // Already shutting down: the hook is running or has run.
        }
        stop();
    }

    private void stop() {
        if (!this.process.isAlive()) {
            return;
        }
        this.process.destroy();
        try {
            if (!this.process.waitFor(this.grace.toMillis(), TimeUnit.MILLISECONDS)) {
                this.process.destroyForcibly();
                this.process.waitFor(5, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            this.process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
