package io.github.loombulkhead.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a harness main class in a fresh JVM (same JDK, same class path), so every measurement starts from a
 * clean heap and JIT state, and returns the JSON it printed after {@code RESULT }.
 */
final class ChildJvm {

    private static final String RESULT_PREFIX = "RESULT ";

    private ChildJvm() {
    }

    static String run(Class<?> mainClass, List<String> jvmArgs, List<String> args, Duration timeout)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (LiveChild child = LiveChild.register(process)) {
            StringBuilder result = new StringBuilder();
            Thread reader = Thread.ofVirtual().start(() -> copyOutput(process, result));
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(mainClass.getSimpleName() + " " + args + " did not finish within " + timeout);
            }
            reader.join();
            if (process.exitValue() != 0 || result.isEmpty()) {
                throw new IllegalStateException(mainClass.getSimpleName() + " " + args + " failed (exit code "
                        + process.exitValue() + "); its error output is above");
            }
            return result.toString();
        }
    }

    /** Echoes the child's output and keeps its last result line. */
    private static void copyOutput(Process process, StringBuilder result) {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(RESULT_PREFIX)) {
                    result.setLength(0);
                    result.append(line, RESULT_PREFIX.length(), line.length());
                }
                else {
                    System.out.println(line);
                }
            }
        }
        catch (IOException ex) {
            System.err.println("Lost the output of a harness JVM: " + ex);
        }
    }
}
