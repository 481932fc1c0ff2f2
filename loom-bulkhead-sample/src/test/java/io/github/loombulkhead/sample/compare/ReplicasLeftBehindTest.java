package io.github.loombulkhead.sample.compare;

import java.io.File;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.sample.launch.JvmCommand;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ReplicasComparisonTest}'s check that no replica is left behind sees a live one, whose class path makes its
 * command line longer than Linux shows.
 */
class ReplicasLeftBehindTest {

    @Test
    void aLiveReplicaWithALongClassPathIsSeenAndNoLongerOnceEnded() throws Exception {
        String classPath = System.getProperty("java.class.path") + File.pathSeparator + "/absent/" + "x".repeat(5_000);
        Process replica = new ProcessBuilder(JvmCommand.javaExecutable(), ReplicasComparisonTest.REPLICA_MARKER, "-cp",
                classPath, Idle.class.getName(), "--loom.sample.replica.index=0")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> !ReplicasComparisonTest.leftBehind().isEmpty());
            assertThat(ReplicasComparisonTest.leftBehind()).singleElement()
                .asString()
                .contains(ReplicasComparisonTest.REPLICA_MARKER);
        }
        finally {
            replica.destroyForcibly();
            assertThat(replica.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(ReplicasComparisonTest.leftBehind()).isEmpty();
    }

    /** Waits to be ended. */
    static final class Idle {

        public static void main(String[] args) throws InterruptedException {
            Thread.sleep(Duration.ofMinutes(2));
        }
    }
}
