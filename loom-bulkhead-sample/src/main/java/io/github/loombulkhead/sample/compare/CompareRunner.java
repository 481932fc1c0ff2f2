package io.github.loombulkhead.sample.compare;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;

/** Runs the comparison once the application has started ({@code loom.sample.run=compare}). */
class CompareRunner implements ApplicationRunner {

    private final Comparison comparison;

    CompareRunner(Comparison comparison) {
        this.comparison = comparison;
    }

    @Override
    public void run(ApplicationArguments args) {
        this.comparison.run();
    }
}
