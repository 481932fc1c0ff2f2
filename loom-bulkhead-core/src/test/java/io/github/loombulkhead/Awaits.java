package io.github.loombulkhead;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/** Awaitility settings for conditions reached by other threads: fine polling, a generous ceiling. */
final class Awaits {

    private Awaits() {
    }

    static ConditionFactory eventually() {
        return Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(2));
    }
}
