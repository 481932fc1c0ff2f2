package io.github.loombulkhead.sample.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.loombulkhead.sample.launch.ChildProcess;
import io.github.loombulkhead.sample.launch.JvmCommand;
import io.github.loombulkhead.sample.launch.ProcessStartException;

/**
 * A front server of the server comparison in its own JVM (same binary, role {@code caller}, as a web
 * application) on a loopback port, calling the given callee. Stopped by {@link #close()} and by a shutdown hook.
 */
final class FrontServer implements AutoCloseable {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final Process process;

    private final int port;

    private final ChildProcess child;

    private final Path log;

    private FrontServer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
        this.child = new ChildProcess(process, "loom-sample-front", Duration.ofSeconds(15));
    }

    /**
     * Starts the front server and waits until it answers.
     *
     * @param jvmArguments options of its JVM
     * @param arguments its settings (setup, callee, samples file)
     * @param log file that receives its output
     */
    static FrontServer start(List<String> jvmArguments, List<String> arguments, Path log, Duration startupTimeout) {
        int port = ChildProcess.freeLoopbackPort(
                (ex) -> new ProcessStartException("No free loopback port for the front server: " + ex.getMessage(),
                        "Free a loopback port, or stop what holds them."));
        List<String> all = new ArrayList<>(arguments);
        all.add("--loom.sample.role=caller");
        all.add("--server.address=" + LOOPBACK.getHostAddress());
        all.add("--server.port=" + port);
        List<String> command = JvmCommand.application(jvmArguments, all);
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            // The front server gets its settings as arguments; the comparison's LOOM_SAMPLE_* variables are not for it.
            builder.environment().keySet().removeIf((name) -> name.startsWith("LOOM_SAMPLE_"));
            FrontServer front = new FrontServer(builder.start(), port, log);
            try {
                front.awaitReady(startupTimeout, log);
            }
            catch (RuntimeException ex) {
                front.close();
                throw ex;
            }
            return front;
        }
        catch (IOException ex) {
            throw new ProcessStartException("Could not start the front server (" + String.join(" ", command) + "): "
                    + ex.getMessage(), "Check that the java binary and the report directory are usable.");
        }
    }

    /** Base URL, e.g. {@code http://127.0.0.1:41234}. */
    URI baseUrl() {
        return URI.create("http://" + LOOPBACK.getHostAddress() + ":" + this.port);
    }

    /** Its process id. */
    long pid() {
        return this.process.pid();
    }

    /**
     * Checks that the front server still runs after {@code what} (e.g. {@code the level at concurrency 100}): one
     * that ended answers no request, and ab, run with {@code -r}, would count its refused connections as completed.
     * @throws IllegalStateException naming its exit code and quoting the end of its log
     */
    void requireAlive(String what) {
        if (!this.process.isAlive()) {
            throw new IllegalStateException("The front server ended with code " + this.process.exitValue()
                    + " during " + what + "; the run stops, since its requests got no answer. Last lines of its log "
                    + this.log + ":\n" + ChildProcess.tail(this.log, 20));
        }
    }

    private void awaitReady(Duration timeout, Path log) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!this.process.isAlive()) {
                throw new ProcessStartException("The front server exited with code " + this.process.exitValue()
                        + " before it became ready:\n" + ChildProcess.tail(log, 20), "See its whole log " + log + ".");
            }
            if (answers()) {
                return;
            }
            try {
                Thread.sleep(100);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for the front server", ex);
            }
        }
        throw new ProcessStartException("The front server did not answer within " + timeout + ":\n"
                + ChildProcess.tail(log, 20), "See its whole log " + log + ".");
    }

    private boolean answers() {
        return ChildProcess.answersOk(baseUrl().resolve("/actuator/health"));
    }

    @Override
    public void close() {
        this.child.close();
    }
}
