package io.github.loombulkhead.sample.launch;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationStartingEvent;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JVM the sample started ends when the process that started it ends, also when that one was killed without
 * running its shutdown hooks; and a process started while the sample shuts down is stopped at once. Each test runs
 * a small JVM of its own and kills only the processes it started.
 */
class ExitWithParentTest {

    private static final long WAIT_SECONDS = 30;

    private Process parent;

    private Process child;

    @AfterEach
    void stop() {
        for (Process process : new Process[] { this.child, this.parent }) {
            if (process != null) {
                process.destroyForcibly();
            }
        }
    }

    @Test
    void aChildEndsWhenItsParentIsKilled() throws Exception {
        this.parent = new ProcessBuilder("sleep", "120").start();
        this.child = java(List.of("-D" + ExitWithParent.PROPERTY + "=" + this.parent.pid()), WatchingMain.class);
        assertThat(CompletableFuture.supplyAsync(this::firstLineOfChild).get(WAIT_SECONDS, TimeUnit.SECONDS))
            .isEqualTo("watching");
        assertThat(this.child.isAlive()).as("still running while its parent runs").isTrue();
        this.parent.destroyForcibly();
        assertThat(this.child.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)).as("ended after its parent").isTrue();
        assertThat(this.child.exitValue()).isEqualTo(ExitWithParent.EXIT_CODE);
    }

    @Test
    void aChildWhoseParentIsGoneAlreadyEndsAtOnce() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
        this.child = java(List.of("-D" + ExitWithParent.PROPERTY + "=" + gone.pid()), WatchingMain.class);
        assertThat(this.child.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(this.child.exitValue()).isEqualTo(ExitWithParent.EXIT_CODE);
    }

    @Test
    void aProcessStartedWhileTheSampleShutsDownIsStoppedAtOnce() throws Exception {
        this.child = java(List.of(), StartingDuringShutdownMain.class);
        assertThat(this.child.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        String output = new String(this.child.getInputStream().readAllBytes()).strip();
        assertThat(output).startsWith("refused ");
        long pid = Long.parseLong(output.substring("refused ".length()));
        // Killed and reaped by the JVM that started it: no such process is left.
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    private String firstLineOfChild() {
        try {
            return this.child.inputReader().readLine();
        }
        catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    private static Process java(List<String> jvmArguments, Class<?> main) throws Exception {
        List<String> command = new java.util.ArrayList<>();
        command.add(JvmCommand.javaExecutable());
        command.addAll(jvmArguments);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** Registers the listener as the sample's {@code main} does, says so, then waits to be ended. */
    static final class WatchingMain {

        public static void main(String[] args) throws Exception {
            new ExitWithParent().onApplicationEvent(new ApplicationStartingEvent(null, new SpringApplication(), args));
            System.out.println("watching");
            System.out.flush();
            Thread.sleep(Duration.ofMinutes(2));
        }
    }

    /** Starts a process from a shutdown hook and prints the pid of the process the refusal stopped. */
    static final class StartingDuringShutdownMain {

        public static void main(String[] args) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                Process started;
                try {
                    started = new ProcessBuilder("sleep", "120").start();
                }
                catch (java.io.IOException ex) {
                    throw new IllegalStateException(ex);
                }
                try {
                    new ChildProcess(started, "late", Duration.ofSeconds(1)).close();
                    System.out.println("accepted " + started.pid());
                }
                catch (ProcessStartException ex) {
                    try {
                        started.waitFor(10, TimeUnit.SECONDS);
                    }
                    catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                    }
                    System.out.println("refused " + started.pid());
                }
            }));
        }
    }
}
