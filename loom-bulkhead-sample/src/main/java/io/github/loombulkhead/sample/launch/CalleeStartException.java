package io.github.loombulkhead.sample.launch;

import org.springframework.boot.ExitCodeGenerator;

/** The callee process could not be started or did not become ready; the message says why. */
public class CalleeStartException extends RuntimeException implements ExitCodeGenerator {

    /** Process exit code when the callee could not be started. */
    public static final int EXIT_CODE = 3;

    private final String action;

    public CalleeStartException(String message, String action) {
        super(message);
        this.action = action;
    }

    /** What the user can do about it. */
    public String getAction() {
        return this.action;
    }

    @Override
    public int getExitCode() {
        return EXIT_CODE;
    }
}
