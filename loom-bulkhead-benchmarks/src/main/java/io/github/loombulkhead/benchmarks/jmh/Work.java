package io.github.loombulkhead.benchmarks.jmh;

import java.util.concurrent.locks.LockSupport;

import org.openjdk.jmh.infra.Blackhole;

/** The body of one short task: a fixed amount of arithmetic, or a 1 ms park that frees the carrier thread like blocking I/O. */
public enum Work {

    /**
     * {@link Blackhole#consumeCPU(long)} with 1,000 tokens: arithmetic whose time depends on the machine (about
     * 2 µs on the 2-core machine of {@code docs/benchmarks.md}; the report derives it from a reference row).
     */
    cpu {
        @Override
        public void run() {
            Blackhole.consumeCPU(1_000);
        }
    },

    /** {@code LockSupport.parkNanos(1 ms)}: a virtual thread unmounts, a platform thread sleeps. */
    park {
        @Override
        public void run() {
            LockSupport.parkNanos(1_000_000);
        }
    };

    /** Runs the work once on the calling thread. */
    public abstract void run();
}
