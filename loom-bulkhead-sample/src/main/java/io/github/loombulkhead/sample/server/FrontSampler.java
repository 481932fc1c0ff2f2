package io.github.loombulkhead.sample.server;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;

import com.sun.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.sample.measure.HttpExchangeCounter;
import org.jspecify.annotations.Nullable;

/**
 * Samples a front server from inside its JVM, where no queue of requests can delay the measurement: live
 * platform threads, heap used, calls to the callee in flight and the inbound bulkhead's active and waiting
 * requests and the requests it rejected so far, and the CPU the front JVM and the whole machine use. Appends one CSV line per sample ({@link FrontSample}) to a file the comparison reads afterwards.
 */
final class FrontSampler implements AutoCloseable {

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

    private final OperatingSystemMXBean os = ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);

    private final HttpExchangeCounter calls;

    private final @Nullable Bulkhead inbound;

    private final BufferedWriter out;

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor((task) -> {
        Thread thread = new Thread(task, "loom-sample-front-sampler");
        thread.setDaemon(true);
        return thread;
    });

    FrontSampler(Path file, HttpExchangeCounter calls, @Nullable Bulkhead inbound, Duration interval) {
        this.calls = calls;
        this.inbound = inbound;
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot write the front server's samples to " + file, ex);
        }
        this.timer.scheduleAtFixedRate(this::sample, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void sample() {
        FrontSample sample = new FrontSample(System.currentTimeMillis(), this.threads.getThreadCount(),
                this.memory.getHeapMemoryUsage().getUsed(), this.calls.inFlight(),
                (this.inbound != null) ? this.inbound.getActiveCount() : 0,
                (this.inbound != null) ? this.inbound.getWaitingCount() : 0,
                (this.inbound != null) ? this.inbound.getRejectedCount() : 0, Math.max(0, this.os.getProcessCpuLoad()),
                Math.max(0, this.os.getCpuLoad()));
        try {
            this.out.write(sample.toCsv());
            this.out.newLine();
            this.out.flush();
        }
        catch (IOException ex) {
            // The comparison reports the samples it got; a full disk must not fail the requests.
        }
    }

    @Override
    public void close() throws IOException {
        this.timer.shutdownNow();
        this.out.close();
    }
}
