package io.github.loombulkhead.sample.client;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.Ordered;

/**
 * Starts the callee once the caller's context is up (the web application's case; a comparison starts it
 * itself, after checking its settings).
 */
class CalleeStarter implements ApplicationRunner, Ordered {

    private final CalleeEndpoint callee;

    CalleeStarter(CalleeEndpoint callee) {
        this.callee = callee;
    }

    @Override
    public void run(ApplicationArguments args) {
        this.callee.start();
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 10;
    }
}
