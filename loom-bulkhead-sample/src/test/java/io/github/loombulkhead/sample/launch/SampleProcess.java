package io.github.loombulkhead.sample.launch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The sample started as its own JVM, the way a user runs it, with its output captured in a file. */
final class SampleProcess implements AutoCloseable {

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
            ProcessBuilder builder = new ProcessBuilder(JvmCommand.application(jvmArguments, arguments))
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
