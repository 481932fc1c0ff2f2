package io.github.loombulkhead.sample.launch;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A JVM the sample started, stopped by {@link #close()} and by a shutdown hook should the sample be stopped
 * first: asked to end, given {@code grace} to do so, then killed.
 */
public final class ChildProcess implements AutoCloseable {

    private final Process process;

    private final Duration grace;

    private final Thread shutdownHook;

    /**
     * Watches {@code process}; {@code name} names the shutdown hook's thread.
     * @throws ProcessStartException when this JVM is shutting down already: the process is killed at once, since no
     * shutdown hook could stop it any more
     */
    public ChildProcess(Process process, String name, Duration grace) {
        this.process = process;
        this.grace = grace;
        this.shutdownHook = new Thread(this::stop, name + "-stopper");
        try {
            Runtime.getRuntime().addShutdownHook(this.shutdownHook);
        }
        catch (IllegalStateException ex) {
            process.destroyForcibly();
            throw new ProcessStartException(name + " (pid " + process.pid() + ") was started while the sample was "
                    + "shutting down and has been stopped", "Nothing to do: the sample is ending.");
        }
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

    /** A free port on the loopback address; {@code failure} makes the exception thrown when there is none. */
    public static int freeLoopbackPort(Function<IOException, RuntimeException> failure) {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw failure.apply(ex);
        }
    }

    /** The last {@code lines} lines of the log of a process, for an error message. */
    public static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }
        catch (IOException ex) {
            return "(log not readable: " + ex.getMessage() + ")";
        }
    }

    /** Whether {@code url} answers {@code 200} within a few seconds; {@code false} while nothing listens. */
    public static boolean answersOk(URI url) {
        try {
            HttpURLConnection connection = (HttpURLConnection) url.toURL().openConnection();
            connection.setConnectTimeout(1_000);
            connection.setReadTimeout(2_000);
            connection.setRequestProperty("Connection", "close");
            try {
                return connection.getResponseCode() == 200;
            }
            finally {
                connection.disconnect();
            }
        }
        catch (IOException ex) {
            return false;
        }
    }
}
