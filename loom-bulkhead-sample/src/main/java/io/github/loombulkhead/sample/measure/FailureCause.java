package io.github.loombulkhead.sample.measure;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.concurrent.RejectedExecutionException;

import io.github.resilience4j.bulkhead.BulkheadFullException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;

/** Why a call failed, as the report splits failures. */
public enum FailureCause {

    /** The callee did not answer within the read timeout. */
    READ_TIMEOUT("readTimeout"),

    /** No connection: connect timeout, refused, unreachable, or no pooled connection in time. */
    CONNECT("connect"),

    /** A bulkhead, semaphore or executor refused the task before it called. */
    REJECTED("rejected"),

    /** Anything else: an error status, an interrupt, a task that never ended. */
    OTHER("other");

    private final String key;

    FailureCause(String key) {
        this.key = key;
    }

    /** The field name in the report's {@code failures} object. */
    public String key() {
        return this.key;
    }

    /** Classifies a failure by walking its cause chain. */
    public static FailureCause of(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
            if (cause instanceof RejectedExecutionException || cause instanceof BulkheadFullException) {
                return REJECTED;
            }
            if (cause instanceof ConnectTimeoutException || cause instanceof ConnectionRequestTimeoutException
                    || cause instanceof ConnectException || cause instanceof NoRouteToHostException
                    || cause instanceof UnknownHostException) {
                return CONNECT;
            }
            if (cause instanceof SocketTimeoutException) {
                return READ_TIMEOUT;
            }
        }
        return OTHER;
    }
}
