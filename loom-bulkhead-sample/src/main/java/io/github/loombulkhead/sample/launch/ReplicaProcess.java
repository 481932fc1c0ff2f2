package io.github.loombulkhead.sample.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A caller replica of the comparison in its own JVM (same binary, same class path, role {@code caller}), which runs
 * the modes with its share of the requests and writes its own report. Stopped by {@link #close()} and by a
 * shutdown hook.
 */
public final class ReplicaProcess implements AutoCloseable {

    private final Process process;

    private final Path log;

    private final ChildProcess child;

    private ReplicaProcess(Process process, Path log, int index) {
        this.process = process;
        this.log = log;
        this.child = new ChildProcess(process, "loom-sample-replica-" + index, Duration.ofSeconds(10));
    }

    /**
     * Starts replica {@code index}.
     * @param jvmArguments options of its JVM
     * @param arguments its settings
     * @param log file that receives its output
     * @throws ProcessStartException when the JVM cannot be started
     */
    public static ReplicaProcess start(int index, List<String> jvmArguments, List<String> arguments, Path log) {
        List<String> all = new ArrayList<>(arguments);
        all.add("--loom.sample.role=caller");
        List<String> command = JvmCommand.application(jvmArguments, all);
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            // The replica gets its settings as arguments; the comparison's LOOM_SAMPLE_* variables are not for it.
            builder.environment().keySet().removeIf((name) -> name.startsWith("LOOM_SAMPLE_"));
            return new ReplicaProcess(builder.start(), log, index);
        }
        catch (IOException ex) {
            throw new ProcessStartException("Could not start replica " + index + " (" + String.join(" ", command)
                    + "): " + ex.getMessage(), "Check that the java binary and the report directory are usable.");
        }
    }

    /** Whether it still runs or ended with exit code 0. */
    public boolean isAliveOrSucceeded() {
        return this.process.isAlive() || this.process.exitValue() == 0;
    }

    /** Its exit code, once it has ended. */
    public int exitCode() {
        return this.process.exitValue();
    }

    /** Waits for the replica to end and returns its exit code. */
    public int awaitExit(Duration timeout) {
        try {
            if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("Replica did not end within " + timeout + "; see its log " + this.log);
            }
            return this.process.exitValue();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a replica to end", ex);
        }
    }

    /** Its log file. */
    public Path log() {
        return this.log;
    }

    /** The last {@code lines} lines of its log. */
    public String tail(int lines) {
        return ChildProcess.tail(this.log, lines);
    }

    /** Stops the replica if it still runs and waits for it to end. */
    @Override
    public void close() {
        this.child.close();
    }
}
