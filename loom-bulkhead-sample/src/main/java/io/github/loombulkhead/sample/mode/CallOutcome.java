package io.github.loombulkhead.sample.mode;

import com.netflix.concurrency.limits.Limiter;
import io.github.loombulkhead.sample.measure.FailureCause;

import org.springframework.http.HttpStatus;
import org.springframework.web.client.RestClientResponseException;

/**
 * What a failed call tells a Netflix limiter: a timeout, a failed connection, {@code 503} or {@code 429} is an
 * overload signal ({@link #DROPPED}); anything else says nothing about the callee's load ({@link #IGNORED}).
 */
enum CallOutcome {

    /** The callee is overloaded: {@link Limiter.Listener#onDropped()}. */
    DROPPED,

    /** Nothing learned: {@link Limiter.Listener#onIgnore()}. */
    IGNORED;

    /** Classifies a call that failed with {@code failure}, walking its cause chain. */
    static CallOutcome of(Throwable failure) {
        FailureCause cause = FailureCause.of(failure);
        if (cause == FailureCause.READ_TIMEOUT || cause == FailureCause.CONNECT) {
            return DROPPED;
        }
        for (Throwable t = failure; t != null; t = (t.getCause() != t) ? t.getCause() : null) {
            if (t instanceof RestClientResponseException response
                    && (response.getStatusCode().isSameCodeAs(HttpStatus.SERVICE_UNAVAILABLE)
                            || response.getStatusCode().isSameCodeAs(HttpStatus.TOO_MANY_REQUESTS))) {
                return DROPPED;
            }
        }
        return IGNORED;
    }

    /** Tells {@code listener}. */
    void report(Limiter.Listener listener) {
        if (this == DROPPED) {
            listener.onDropped();
        }
        else {
            listener.onIgnore();
        }
    }
}
