package io.github.loombulkhead.benchmarks;

import java.util.concurrent.TimeUnit;

/**
 * A child process this JVM started ({@code java} for a harness, {@code redis-server}) that must not outlive it: closing
 * destroys it if it still runs (also when the waiting thread was interrupted or failed), and until then a shutdown hook
 * destroys it if the JVM ends first (SIGTERM, Ctrl-C, {@code System.exit}). Only the process given here is touched.
 */
public final class LiveChild implements AutoCloseable {

    private final Process process;

    private final Thread hook;

    private LiveChild(Process process) {
        this.process = process;
        this.hook = new Thread(() -> destroy(process), "destroy child " + process.pid());
    }

    /** Starts watching {@code process}; close the result when the process is done with. */
    public static LiveChild register(Process process) {
        LiveChild child = new LiveChild(process);
        try {
            Runtime.getRuntime().addShutdownHook(child.hook);
        }
        catch (IllegalStateException shuttingDown) {
            destroy(process);
            throw shuttingDown;
        }
        return child;
    }

    /** Destroys the process if it is still alive and stops watching it. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(this.hook);
        }
        catch (IllegalStateException shuttingDown) {
            // the hook runs (or ran) and destroys the process
        }
        destroy(this.process);
    }

    private static void destroy(Process process) {
        if (!process.isAlive()) {
            return;
        }
        process.destroyForcibly();
        boolean interrupted = Thread.interrupted();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            interrupted = true;
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
