package io.github.loombulkhead.sample.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/** A real front-server JVM that ends between two levels stops the run, with its exit code and its log. */
class FrontServerTest {

    @TempDir
    Path directory;

    @Test
    void aFrontServerThatEndedIsReportedWithItsExitCodeAndLog() {
        Path log = this.directory.resolve("front-virtual.log");
        try (FrontServer front = FrontServer.start(List.of("-Xmx256m"),
                List.of("--loom.sample.callee.url=http://127.0.0.1:1",
                        "--management.endpoints.web.exposure.include=health"),
                log, Duration.ofSeconds(120))) {
            front.requireAlive("the level of virtual at concurrency 30");
            ProcessHandle process = ProcessHandle.of(front.pid()).orElseThrow();
            process.destroyForcibly();
            await().atMost(Duration.ofSeconds(30)).until(() -> !process.isAlive());
            assertThatIllegalStateException()
                .isThrownBy(() -> front.requireAlive("the level of virtual at concurrency 30"))
                .withMessageStartingWith("The front server ended with code 137 during the level of virtual at "
                        + "concurrency 30; the run stops, since its requests got no answer. Last lines of its log "
                        + log + ":\n")
                .withMessageContaining("Started LoomBulkheadSampleApplication");
        }
    }
}
