package io.github.loombulkhead.sample.launch;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a callee that could not start as a short description and what to do, instead of a stack trace. */
class CalleeStartFailureAnalyzer extends AbstractFailureAnalyzer<CalleeStartException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, CalleeStartException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }
}
