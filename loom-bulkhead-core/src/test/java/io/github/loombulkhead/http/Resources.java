package io.github.loombulkhead.http;

import java.util.ArrayList;
import java.util.List;

/**
 * What a test opened (clients, factories), closed in reverse order when the test ends: declare it as an
 * {@code @AutoClose} field.
 */
public final class Resources implements AutoCloseable {

    private final List<AutoCloseable> opened = new ArrayList<>();

    /** Closes {@code resource} with the others. */
    public void add(AutoCloseable resource) {
        this.opened.add(resource);
    }

    /** Closes every resource, even when one fails; the first failure is thrown, the others are suppressed. */
    @Override
    public void close() throws Exception {
        Exception failure = null;
        for (AutoCloseable resource : this.opened.reversed()) {
            try {
                resource.close();
            }
            catch (Exception ex) {
                if (failure == null) {
                    failure = ex;
                }
                else {
                    failure.addSuppressed(ex);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
