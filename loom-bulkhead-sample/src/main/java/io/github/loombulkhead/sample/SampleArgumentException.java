package io.github.loombulkhead.sample;

import org.springframework.boot.ExitCodeGenerator;

/** A {@code loom.sample.*} setting has a value the sample cannot use; the message names it and the fix. */
public class SampleArgumentException extends IllegalArgumentException implements ExitCodeGenerator {

    /** Process exit code for a bad argument. */
    public static final int EXIT_CODE = 2;

    public SampleArgumentException(String message) {
        super(message);
    }

    @Override
    public int getExitCode() {
        return EXIT_CODE;
    }
}
