package io.github.loombulkhead.sample.compare;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BooleanSupplier;

import io.github.loombulkhead.sample.Mode;

/**
 * Starts each mode in every replica at the same moment, through files in one directory: a replica that is
 * ready (callee idle, baseline taken) creates {@code ready-<mode>-<replica>} and waits for {@code go-<mode>}, which
 * the comparison creates once all are ready; a replica that ended the mode creates {@code done-<mode>-<replica>}.
 */
final class ReplicaGate {

    /** How often a waiting side looks for the file it waits for. */
    private static final Duration POLL = Duration.ofMillis(2);

    private final Path directory;

    ReplicaGate(Path directory) {
        this.directory = directory;
        try {
            Files.createDirectories(directory);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot create the replicas' gate directory " + directory, ex);
        }
    }

    /**
     * How long the comparison waits for each replica to be ready for a mode: twice the mode's deadline, and for the
     * first mode also the replicas' startup timeout.
     */
    static Duration readyWait(Duration modeDeadline, Duration startupTimeout, boolean firstMode) {
        Duration wait = modeDeadline.multipliedBy(2);
        return firstMode ? wait.plus(startupTimeout) : wait;
    }

    /** How long the comparison waits for each replica to end a mode: twice the mode's deadline. */
    static Duration doneWait(Duration modeDeadline) {
        return modeDeadline.multipliedBy(2);
    }

    /**
     * How long a replica ready for a mode waits for the comparison to open the gate: as long as the comparison waits
     * before it opens it, for the replicas to be ready and, before a later mode, first for them to end the previous
     * one and for the callee to become idle (up to a mode's deadline).
     */
    static Duration openWait(Duration modeDeadline, Duration startupTimeout, boolean firstMode) {
        Duration ready = readyWait(modeDeadline, startupTimeout, firstMode);
        return firstMode ? ready : doneWait(modeDeadline).plus(modeDeadline).plus(ready);
    }

    /** Replica side: announces it is ready for {@code mode} and waits until the comparison opens the gate. */
    void arrive(Mode mode, int replica, Duration timeout) {
        create("ready-" + mode.id() + "-" + replica);
        ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
        awaitFile("go-" + mode.id(), timeout, () -> parent == null || parent.isAlive(),
                "the comparison that started this replica has ended");
    }

    /** Replica side: announces it ended {@code mode}. */
    void finished(Mode mode, int replica) {
        create("done-" + mode.id() + "-" + replica);
    }

    /** Comparison side: waits until every replica is ready for {@code mode}. */
    void awaitReady(Mode mode, int replicas, Duration timeout, BooleanSupplier replicasAlive) {
        awaitAll("ready-", mode, replicas, timeout, replicasAlive);
    }

    /** Comparison side: lets every replica start {@code mode} now. */
    void open(Mode mode) {
        create("go-" + mode.id());
    }

    /** Comparison side: waits until every replica ended {@code mode}. */
    void awaitDone(Mode mode, int replicas, Duration timeout, BooleanSupplier replicasAlive) {
        awaitAll("done-", mode, replicas, timeout, replicasAlive);
    }

    private void awaitAll(String prefix, Mode mode, int replicas, Duration timeout, BooleanSupplier replicasAlive) {
        for (int i = 0; i < replicas; i++) {
            awaitFile(prefix + mode.id() + "-" + i, timeout, replicasAlive, "a replica has ended early");
        }
    }

    private void awaitFile(String name, Duration timeout, BooleanSupplier keepWaiting, String whyNot) {
        Path file = this.directory.resolve(name);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(file)) {
            if (!keepWaiting.getAsBoolean()) {
                throw new IllegalStateException("Stopped waiting for " + file + ": " + whyNot);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Gave up waiting for " + file + " after " + timeout);
            }
            try {
                Thread.sleep(POLL);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for " + file, ex);
            }
        }
    }

    private void create(String name) {
        try {
            Files.createFile(this.directory.resolve(name));
        }
        catch (FileAlreadyExistsException ex) {
            throw new IllegalStateException("The gate file " + this.directory.resolve(name) + " exists already: "
                    + "two replicas with the same index, or a gate directory used twice", ex);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot create the gate file " + this.directory.resolve(name), ex);
        }
    }
}
