package io.github.loombulkhead;

import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;

/**
 * Thrown, or used to complete a future exceptionally, when a bulkhead refuses a call or task.
 * Carries the bulkhead's name and the {@link RejectionReason}, so callers can map it to 503/429.
 */
public class BulkheadRejectedException extends RejectedExecutionException {

    private static final long serialVersionUID = 1L;

    private final String bulkheadName;

    private final RejectionReason reason;

    public BulkheadRejectedException(String bulkheadName, RejectionReason reason, String detail) {
        super("Bulkhead '" + bulkheadName + "' rejected the call: " + reason.tag()
                + ((detail != null) ? " (" + detail + ")" : ""));
        this.bulkheadName = Objects.requireNonNull(bulkheadName, "bulkheadName");
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** Name of the bulkhead that refused the call. */
    public String getBulkheadName() {
        return this.bulkheadName;
    }

    /** Why the call was refused. */
    public RejectionReason getReason() {
        return this.reason;
    }
}
