package io.github.loombulkhead.benchmarks.jmh;

import java.util.concurrent.locks.LockSupport;

import org.openjdk.jmh.infra.Blackhole;

/** The body of one short task: a fixed amount of arithmetic, or a 1 ms park that frees the carrier thread like blocking I/O. */
public enum Work {

    /**
     * {@link Blackhole#consumeCPU(long)} with 1,000 tokens: a fixed amount of arithmetic whose time depends on the
     * machine; the report derives it from the burst's reference row ({@code docs/benchmarks.md} quotes it).
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
