package io.github.loombulkhead.sample;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a bad {@code loom.sample.*} setting found after startup as a description and a fix, not a stack trace. */
class SampleArgumentFailureAnalyzer extends AbstractFailureAnalyzer<SampleArgumentException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SampleArgumentException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Change the setting on the command line; the loom.sample.* options are listed in "
                        + "docs/sample-report.md.",
                cause);
    }
}
