package io.github.loombulkhead.benchmarks.jmh;

/** A method that does almost nothing, called through a limiter's proxy to measure the limiter alone. */
public interface Callee {

    /** Returns a running count, so the call cannot be optimised away. */
    int call();
}
