package io.github.loombulkhead.sample.callee;

import java.util.concurrent.Executor;

import org.apache.tomcat.util.threads.ThreadPoolExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;

/**
 * The worker pool of the callee's Tomcat connector: how many workers are busy, how many requests wait, and how
 * many workers there may be (which can change while it runs).
 */
class TomcatWorkers implements ApplicationListener<WebServerInitializedEvent> {

    private volatile @Nullable ThreadPoolExecutor executor;

    /** Workers of the connector, known once the web server has started. */
    TomcatWorkers() {
    }

    /** Workers of {@code executor}. */
    TomcatWorkers(ThreadPoolExecutor executor) {
        this.executor = executor;
    }

    @Override
    public void onApplicationEvent(WebServerInitializedEvent event) {
        if (event.getWebServer() instanceof TomcatWebServer tomcat) {
            Executor executor = tomcat.getTomcat().getConnector().getProtocolHandler().getExecutor();
            if (executor instanceof ThreadPoolExecutor pool) {
                this.executor = pool;
            }
        }
    }

    /** Workers serving a request, or -1 when unknown. */
    int busy() {
        ThreadPoolExecutor pool = this.executor;
        return (pool != null) ? pool.getActiveCount() : -1;
    }

    /** Most workers the pool runs at once, or -1 when unknown. */
    int capacity() {
        ThreadPoolExecutor pool = this.executor;
        return (pool != null) ? pool.getMaximumPoolSize() : -1;
    }

    /**
     * Sets the most workers to {@code workers}. Growing starts new workers for waiting requests at once; shrinking
     * lets busy workers finish their request before they end.
     */
    void resize(int workers) {
        ThreadPoolExecutor pool = this.executor;
        if (pool == null) {
            throw new IllegalStateException("The callee's Tomcat worker pool is not known, so its capacity cannot "
                    + "change");
        }
        // The core size may never exceed the maximum: grow the maximum first, shrink it last.
        if (workers >= pool.getMaximumPoolSize()) {
            pool.setMaximumPoolSize(workers);
            pool.setCorePoolSize(workers);
        }
        else {
            pool.setCorePoolSize(workers);
            pool.setMaximumPoolSize(workers);
        }
    }

    /** Requests waiting for a worker, or -1 when unknown. */
    int queued() {
        ThreadPoolExecutor pool = this.executor;
        return (pool != null) ? pool.getQueue().size() : -1;
    }
}
