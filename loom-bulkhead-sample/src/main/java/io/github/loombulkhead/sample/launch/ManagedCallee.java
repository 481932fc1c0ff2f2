package io.github.loombulkhead.sample.launch;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The callee in its own JVM (same binary, same class path, role {@code callee}) on a loopback port, so the
 * caller's threads, heap and native memory are measured without it. Stopped by {@link #close()}, by a
 * shutdown hook on Ctrl-C, and, should this JVM die without hooks, by the callee itself when it sees its
 * parent process end.
 */
public final class ManagedCallee implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(ManagedCallee.class);

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final Process process;

    private final int port;

    private final Path log;

    private final ChildProcess child;

    private ManagedCallee(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
        this.child = new ChildProcess(process, "loom-sample-callee", Duration.ofSeconds(10));
    }

    /**
     * Starts the callee and waits until it answers.
     *
     * @param settings how to start it: port (0 for a free one), JVM options, how long to wait
     * @param calleeArguments the callee's scenario, e.g. {@code --loom.sample.callee.capacity=200}
     * @param log file that receives the callee's output
     * @throws CalleeStartException when the port is taken, the process ends early, or it is not ready in time
     */
    public static ManagedCallee start(Settings settings, List<String> calleeArguments, Path log) {
        int port = (settings.port() != 0) ? requireFree(settings.port())
                : ChildProcess.freeLoopbackPort((ex) -> new CalleeStartException(
                        "No free loopback port for the callee: " + ex.getMessage(),
                        "Set one explicitly with --loom.sample.callee.port."));
        List<String> arguments = new ArrayList<>(calleeArguments);
        arguments.add("--loom.sample.role=callee");
        arguments.add("--server.address=" + LOOPBACK.getHostAddress());
        arguments.add("--server.port=" + port);
        // The callee ends with this JVM, also when it is killed without running its shutdown hooks.
        List<String> command = JvmCommand.application(settings.jvmArguments(), arguments);
        Process process;
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            // The callee gets its settings as arguments; the caller's LOOM_SAMPLE_* variables are not for it.
            builder.environment().keySet().removeIf((name) -> name.startsWith("LOOM_SAMPLE_"));
            process = builder.start();
        }
        catch (IOException ex) {
            throw new CalleeStartException("Could not start the callee process (" + String.join(" ", command) + "): "
                    + ex.getMessage(), "Check that the java binary and the log directory " + log.getParent()
                            + " are usable.");
        }
        ManagedCallee callee = new ManagedCallee(process, port, log);
        try {
            callee.awaitReady(settings.startupTimeout());
        }
        catch (RuntimeException ex) {
            callee.close();
            throw ex;
        }
        logger.info("Callee started on port " + port + " (pid " + process.pid() + ", log " + log + ")");
        return callee;
    }

    /** Base URL of the callee, e.g. {@code http://127.0.0.1:41234}. */
    public URI baseUrl() {
        return URI.create("http://" + LOOPBACK.getHostAddress() + ":" + this.port);
    }

    /** Process id of the callee. */
    public long pid() {
        return this.process.pid();
    }

    public boolean isAlive() {
        return this.process.isAlive();
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!this.process.isAlive()) {
                throw new CalleeStartException("The callee process exited with code " + this.process.exitValue()
                        + " before it became ready. Last lines of its log " + this.log + ":\n"
                        + ChildProcess.tail(this.log, 30),
                        "Fix the cause shown in the callee's log; its JVM options are set with "
                                + "--loom.sample.callee.jvm-arguments.");
            }
            if (answers()) {
                return;
            }
            pause(Duration.ofMillis(100));
        }
        throw new CalleeStartException("The callee did not become ready within " + timeout + " (port " + this.port
                + "). Last lines of its log " + this.log + ":\n" + ChildProcess.tail(this.log, 30),
                "Give it more time with --loom.sample.callee.startup-timeout, or look at the log for the cause.");
    }

    private boolean answers() {
        return ChildProcess.answersOk(baseUrl().resolve("/api/test/status"));
    }

    /** Stops the callee and waits for its process to end. */
    @Override
    public void close() {
        this.child.close();
    }

    private static int requireFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(LOOPBACK, port), 1);
            return port;
        }
        catch (BindException ex) {
            throw new CalleeStartException("Port " + port + " on " + LOOPBACK.getHostAddress()
                    + " is already in use, so the callee cannot listen there.",
                    "Stop whatever listens on port " + port + ", choose another with --loom.sample.callee.port, "
                            + "or leave it out to use a free port.");
        }
        catch (IOException ex) {
            throw new CalleeStartException("Cannot use port " + port + " for the callee: " + ex.getMessage(),
                    "Choose another with --loom.sample.callee.port, or leave it out to use a free port.");
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new CalleeStartException("Interrupted while waiting for the callee to start",
                    "Run the comparison again.");
        }
    }

    /**
     * How to start the callee.
     *
     * @param port loopback port, 0 for a free one
     * @param jvmArguments options of the callee's JVM
     * @param startupTimeout how long to wait for it to answer
     */
    public record Settings(int port, List<String> jvmArguments, Duration startupTimeout) {
    }
}
