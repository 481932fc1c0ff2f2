package io.github.loombulkhead.sample.launch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The sample started as its own JVM, the way a user runs it, with its output captured in a file. */
final class SampleProcess implements AutoCloseable {

    /**
     * A build started as a background job of a non-interactive shell (as CI may start it) inherits SIGINT as
     * ignored, and a JVM then ignores Ctrl-C for good; {@code env --default-signal=INT} gives the sample the
     * disposition a terminal user's process has.
     */
    private static final List<String> DEFAULT_SIGINT = defaultSigint();

    private final Process process;

    private final Path output;

    private SampleProcess(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    static SampleProcess start(Path directory, List<String> jvmArguments, List<String> arguments) {
        return start(directory, jvmArguments, arguments, Map.of());
    }

    static SampleProcess start(Path directory, List<String> jvmArguments, List<String> arguments,
            Map<String, String> environment) {
        Path output = directory.resolve("output.txt");
        try {
            Files.createDirectories(directory);
            List<String> command = new ArrayList<>(DEFAULT_SIGINT);
            command.addAll(JvmCommand.application(jvmArguments, arguments));
            ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
            builder.environment().putAll(environment);
            Process process = builder.start();
            return new SampleProcess(process, output);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static List<String> defaultSigint() {
        List<String> prefix = List.of("env", "--default-signal=INT");
        try {
            Process probe = new ProcessBuilder(concat(prefix, "true")).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
            return (probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0) ? prefix : List.of();
        }
        catch (IOException ex) {
            return List.of();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    private static List<String> concat(List<String> prefix, String last) {
        List<String> all = new ArrayList<>(prefix);
        all.add(last);
        return all;
    }

    /** Waits for the process to end (at most {@code timeout}) and returns its exit code. */
    int exitCode(Duration timeout) throws InterruptedException {
        boolean ended = this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(ended).as("sample process ended within " + timeout + "; output:\n" + output()).isTrue();
        return this.process.exitValue();
    }

    String output() {
        try {
            return Files.exists(this.output) ? Files.readString(this.output, StandardCharsets.UTF_8) : "";
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    ProcessHandle handle() {
        return this.process.toHandle();
    }

    /** Sends SIGINT, as Ctrl-C in a terminal does. */
    void interrupt() throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-INT", String.valueOf(this.process.pid())).start();
        assertThat(kill.waitFor()).isZero();
    }

    void kill() {
        this.process.destroyForcibly();
    }

    @Override
    public void close() {
        this.process.descendants().forEach(ProcessHandle::destroyForcibly);
        this.process.destroyForcibly();
    }
}
