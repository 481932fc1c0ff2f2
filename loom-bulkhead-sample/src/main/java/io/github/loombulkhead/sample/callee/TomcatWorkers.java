package io.github.loombulkhead.sample.callee;

import java.util.concurrent.Executor;

import org.apache.tomcat.util.threads.ThreadPoolExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;

/** The worker pool of the callee's Tomcat connector: how many workers are busy and how many requests wait. */
class TomcatWorkers implements ApplicationListener<WebServerInitializedEvent> {

    private volatile @Nullable ThreadPoolExecutor executor;

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

    /** Requests waiting for a worker, or -1 when unknown. */
    int queued() {
        ThreadPoolExecutor pool = this.executor;
        return (pool != null) ? pool.getQueue().size() : -1;
    }
}
