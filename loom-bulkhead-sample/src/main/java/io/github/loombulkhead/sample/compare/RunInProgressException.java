package io.github.loombulkhead.sample.compare;

/** A mode was asked to run while another run was still going; runs measure the whole JVM, so one at a time. */
public class RunInProgressException extends IllegalStateException {

    public RunInProgressException() {
        super("Another run is in progress; runs measure the whole JVM, so they run one at a time");
    }
}
