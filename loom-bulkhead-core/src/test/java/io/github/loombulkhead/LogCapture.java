package io.github.loombulkhead;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Collects what a class logs through {@link System.Logger}, which is backed by
 * {@code java.util.logging} when no other logging backend is installed (as in this module's and the redis module's
 * tests).
 */
public final class LogCapture implements AutoCloseable {

    private final Logger logger;

    private final boolean useParentHandlers;

    private final Queue<LogRecord> records = new ConcurrentLinkedQueue<>();

    private final Handler handler = new Handler() {

        @Override
        public void publish(LogRecord record) {
            LogCapture.this.records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    public LogCapture(Class<?> source) {
        this.logger = Logger.getLogger(source.getName());
        this.useParentHandlers = this.logger.getUseParentHandlers();
        this.logger.setUseParentHandlers(false);
        this.logger.addHandler(this.handler);
    }

    public List<LogRecord> records() {
        return List.copyOf(this.records);
    }

    @Override
    public void close() {
        this.logger.removeHandler(this.handler);
        this.logger.setUseParentHandlers(this.useParentHandlers);
    }
}
