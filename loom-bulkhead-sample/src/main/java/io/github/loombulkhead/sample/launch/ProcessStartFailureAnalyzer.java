package io.github.loombulkhead.sample.launch;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a process that could not start (the callee, redis-server, a replica) as a short description and what to do, instead of a stack trace. */
class ProcessStartFailureAnalyzer extends AbstractFailureAnalyzer<ProcessStartException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ProcessStartException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }
}
