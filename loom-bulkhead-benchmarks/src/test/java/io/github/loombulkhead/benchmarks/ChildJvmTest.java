package io.github.loombulkhead.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A harness JVM does not outlive the wait for it. */
class ChildJvmTest {

    @Test
    void anInterruptedWaitDestroysTheChildJvm() throws Exception {
        List<Long> before = ProcessHandle.current().children().map(ProcessHandle::pid).toList();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                ChildJvm.run(Sleeper.class, List.of("-Xmx32m"), List.of(), Duration.ofMinutes(5));
            }
            catch (Throwable ex) {
                failure.set(ex);
            }
        });
        ProcessHandle child = awaitChild(before);
        waiter.interrupt();
        waiter.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(waiter.isAlive()).isFalse();
        assertThat(failure.get()).isInstanceOf(InterruptedException.class);
        assertThat(child.onExit().get(10, TimeUnit.SECONDS).isAlive()).isFalse();
    }

    private static ProcessHandle awaitChild(List<Long> before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Optional<ProcessHandle> child = ProcessHandle.current().children()
                .filter((p) -> !before.contains(p.pid()))
                .findFirst();
            if (child.isPresent()) {
                return child.get();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the child JVM did not start");
    }

    /** A harness that never finishes on its own. */
    public static final class Sleeper {

        public static void main(String[] args) throws InterruptedException {
            Thread.sleep(TimeUnit.MINUTES.toMillis(5));
        }
    }
}
