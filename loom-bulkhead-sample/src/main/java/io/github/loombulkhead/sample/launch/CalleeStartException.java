package io.github.loombulkhead.sample.launch;

/** The callee process could not be started or did not become ready; the message says why. */
public class CalleeStartException extends ProcessStartException {

    /** Process exit code when the callee could not be started. */
    public static final int EXIT_CODE = 3;

    public CalleeStartException(String message, String action) {
        super(message, action, EXIT_CODE);
    }
}
