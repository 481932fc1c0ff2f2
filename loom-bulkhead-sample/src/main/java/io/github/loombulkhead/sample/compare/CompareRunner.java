package io.github.loombulkhead.sample.compare;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.Ordered;

/** Runs the comparison once the application and its callee have started ({@code loom.sample.run=compare}). */
class CompareRunner implements ApplicationRunner, Ordered {

    private final Runnable comparison;

    /** {@code comparison} runs the comparison in this JVM, or in the replicas it starts. */
    CompareRunner(Runnable comparison) {
        this.comparison = comparison;
    }

    @Override
    public void run(ApplicationArguments args) {
        this.comparison.run();
    }

    /** First: the comparison checks its modes before it starts the callee itself. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
