package io.github.loombulkhead.sample.measure;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.loombulkhead.sample.measure.NativeMemoryTracking.ThreadMemory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** Reading the "Thread" section of native memory tracking, from text and from this JVM (started with it on). */
class NativeMemoryTrackingTest {

    private static final String DIFF = """
            Native Memory Tracking:

            Total: reserved=1570000KB +52000KB, committed=120000KB +6000KB

            -                 Java Heap (reserved=524288KB, committed=32768KB)
                                        (mmap: reserved=524288KB, committed=32768KB)

            -                    Thread (reserved=69878KB +51389KB, committed=6178KB +5393KB)
                                        (threads #68 +50)
                                        (stack: reserved=69632KB +51200KB, committed=5932KB +5204KB)
                                        (malloc=169KB +130KB #412 +303)

            -                      Code (reserved=249094KB +48KB, committed=8950KB +48KB)
            """;

    @Test
    void parsesThreadCountsAndStackMemoryWithTheirChanges() {
        ThreadMemory memory = NativeMemoryTracking.parse(DIFF);
        assertThat(memory).isEqualTo(new ThreadMemory(68, 50, 69632L * 1024, 51200L * 1024, 5932L * 1024,
                5204L * 1024));
    }

    @Test
    void unchangedAndShrunkValuesParseAsZeroAndNegative() {
        String diff = """
                -                    Thread (reserved=20480KB -1024KB, committed=1000KB)
                                            (thread #20)
                                            (stack: reserved=20480KB -1028KB, committed=900KB)
                """;
        assertThat(NativeMemoryTracking.parse(diff)).isEqualTo(new ThreadMemory(20, 0, 20480L * 1024,
                -1028L * 1024, 900L * 1024, 0));
    }

    @Test
    void outputWithoutAThreadSectionIsAnError() {
        assertThatIllegalStateException().isThrownBy(() -> NativeMemoryTracking.parse("Native memory tracking is not enabled"))
            .withMessageContaining("No Thread section");
    }

    @Test
    void measuresThePlatformThreadsThisJvmStarts() throws Exception {
        NativeMemoryTracking tracking = NativeMemoryTracking.ofThisJvm();
        assertThat(tracking.isEnabled()).as("surefire starts the test JVM with -XX:NativeMemoryTracking=summary")
            .isTrue();
        // The counts are the whole JVM's: another thread ending meanwhile (a compiler thread that idled out, a
        // thread of a finished test) lowers them. Measured up to three times; one clean measurement must see all 20.
        ThreadMemory best = null;
        for (int attempt = 0; attempt < 3 && (best == null || best.threadsDelta() < 20); attempt++) {
            ThreadMemory memory = whileTwentyThreadsWait(tracking);
            assertThat(memory).isNotNull();
            if (best == null || memory.threadsDelta() > best.threadsDelta()) {
                best = memory;
            }
        }
        assertThat(best.threadsDelta()).isGreaterThanOrEqualTo(20);
        assertThat(best.stackReservedDeltaBytes()).isGreaterThanOrEqualTo(20 * 512L * 1024);
    }

    /** The thread memory since a baseline taken right before 20 platform threads started, while they wait. */
    private static ThreadMemory whileTwentyThreadsWait(NativeMemoryTracking tracking) throws Exception {
        tracking.baseline();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(20);
        ExecutorService pool = Executors.newFixedThreadPool(20);
        try {
            for (int i = 0; i < 20; i++) {
                pool.execute(() -> {
                    started.countDown();
                    try {
                        release.await();
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            started.await();
            return tracking.threadDiff();
        }
        finally {
            release.countDown();
            pool.close();
        }
    }
}
