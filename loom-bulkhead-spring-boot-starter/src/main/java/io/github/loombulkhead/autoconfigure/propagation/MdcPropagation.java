package io.github.loombulkhead.autoconfigure.propagation;

import java.util.Map;
import java.util.function.UnaryOperator;

import org.slf4j.MDC;

/** Copies the submitter's SLF4J MDC into the task and restores the worker's own MDC afterwards. */
final class MdcPropagation implements UnaryOperator<Runnable> {

    @Override
    public Runnable apply(Runnable task) {
        Map<String, String> submitted = MDC.getCopyOfContextMap();
        return () -> {
            Map<String, String> previous = MDC.getCopyOfContextMap();
            setContext(submitted);
            try {
                task.run();
            }
            finally {
                setContext(previous);
            }
        };
    }

    private static void setContext(Map<String, String> context) {
        if (context != null) {
            MDC.setContextMap(context);
        }
        else {
            MDC.clear();
        }
    }
}
