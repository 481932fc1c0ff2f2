package io.github.loombulkhead.sample.launch;

import org.springframework.boot.ExitCodeGenerator;

/**
 * A process the comparison needs besides the callee (redis-server, a replica, a front server) could not start; says
 * why and what to do.
 */
public class ProcessStartException extends RuntimeException implements ExitCodeGenerator {

    /** Process exit code when such a process could not be started. */
    public static final int EXIT_CODE = 4;

    private final String action;

    private final int exitCode;

    public ProcessStartException(String message, String action) {
        this(message, action, EXIT_CODE);
    }

    protected ProcessStartException(String message, String action, int exitCode) {
        super(message);
        this.action = action;
        this.exitCode = exitCode;
    }

    /** What the user can do about it. */
    public String getAction() {
        return this.action;
    }

    @Override
    public int getExitCode() {
        return this.exitCode;
    }
}
