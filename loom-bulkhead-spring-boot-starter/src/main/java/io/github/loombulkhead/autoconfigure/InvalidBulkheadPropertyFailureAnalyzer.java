package io.github.loombulkhead.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link InvalidBulkheadPropertyException} into the startup report: the property, its bad value,
 * where it was set and how to fix it, instead of a stack trace from inside the library.
 */
class InvalidBulkheadPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidBulkheadPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidBulkheadPropertyException cause) {
        StringBuilder description = new StringBuilder();
        description.append("Invalid value for the bulkhead configuration property '").append(cause.getProperty())
            .append("':\n\n    Property: ").append(cause.getProperty())
            .append("\n    Value: \"").append(cause.getValue()).append('"');
        if (cause.getOrigin() != null) {
            description.append("\n    Origin: ").append(cause.getOrigin());
        }
        description.append("\n    Reason: ").append(cause.getReason());
        return new FailureAnalysis(description.toString(), cause.getFix(), cause);
    }
}
