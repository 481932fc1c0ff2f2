package io.github.loombulkhead.sample.client;

import java.net.ConnectException;
import java.time.Duration;

import io.github.loombulkhead.sample.CapacitySchedule;
import io.github.loombulkhead.sample.Mode;
import io.github.loombulkhead.sample.SampleArgumentException;
import io.github.loombulkhead.sample.callee.CalleeStatus;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.core5.util.TimeValue;

import org.springframework.web.client.RestClientException;

/** The calls a mode makes, and the housekeeping between modes: waiting for an idle callee, a fresh pool. */
public final class CalleeCalls {

    /** Refused status requests in a row, 50 ms apart, after which the callee counts as gone. */
    private static final int REFUSED_BEFORE_GIVING_UP = 40;

    private final SlowApi api;

    private final BulkheadedSlowApi bulkheadedApi;

    private final AdaptiveSlowApi adaptiveApi;

    private final ClusterSlowApi clusterApi;

    private final PoolingHttpClientConnectionManager connections;

    public CalleeCalls(SlowApi api, BulkheadedSlowApi bulkheadedApi, AdaptiveSlowApi adaptiveApi,
            ClusterSlowApi clusterApi, PoolingHttpClientConnectionManager connections) {
        this.api = api;
        this.bulkheadedApi = bulkheadedApi;
        this.adaptiveApi = adaptiveApi;
        this.clusterApi = clusterApi;
        this.connections = connections;
    }

    /**
     * The call each task of {@code mode} makes: the configured latency, or none for a warm-up. The adaptive mode
     * warms up through the static {@code @Bulkhead} client (the same code path), so that its algorithm starts the
     * measured run from its initial state instead of from what calls without latency taught it.
     */
    public Runnable call(Mode mode, boolean warmUp) {
        return switch (mode) {
            case LOOM_BULKHEAD_HTTP -> warmUp ? () -> this.bulkheadedApi.slow(0) : this.bulkheadedApi::slow;
            case LOOM_BULKHEAD_ADAPTIVE -> warmUp ? () -> this.bulkheadedApi.slow(0) : this.adaptiveApi::slow;
            case LOOM_BULKHEAD_CLUSTER -> warmUp ? () -> this.clusterApi.slow(0) : this.clusterApi::slow;
            default -> warmUp ? () -> this.api.slow(0) : this.api::slow;
        };
    }

    /**
     * Sets the callee's workers to the schedule's initial capacity and has the callee apply its changes from now
     * on, whatever capacity an earlier run left it with; and checks that the callee answers in {@code latency}, the
     * latency the report and its Little's-law bound assume. Call it right before a mode starts, when the callee is
     * idle: a request sent later would wait in the callee's queue behind the mode's calls, so the callee keeps the
     * times itself.
     * @throws SampleArgumentException when the callee was started with another latency
     */
    public void scheduleCapacity(CapacitySchedule schedule, Duration latency) {
        CalleeStatus status = this.api.capacity(schedule);
        if (status.latencyMs() != latency.toMillis()) {
            throw new SampleArgumentException("The callee answers in " + status.latencyMs()
                    + " ms, but loom.sample.callee.latency is " + latency.toMillis() + " ms, from which the report "
                    + "computes the Little's-law bound; set --loom.sample.callee.latency=" + status.latencyMs()
                    + "ms, or start the callee with --loom.sample.callee.latency=" + latency.toMillis() + "ms");
        }
    }

    /** What the callee is doing right now; send it only while the callee is idle, or it queues behind the calls. */
    public CalleeStatus status() {
        return this.api.status();
    }

    /** Starts a new peak of the callee's requests in progress; send it while the callee is idle. */
    public CalleeStatus resetPeak() {
        return this.api.resetPeak();
    }

    /**
     * Waits until the callee has served every request still queued from an earlier mode (abandoned requests
     * are still served), so one mode's leftovers never slow down the next.
     */
    public void awaitIdleCallee(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int idleInARow = 0;
        int refusedInARow = 0;
        CalleeStatus last = null;
        RestClientException lastError = null;
        while (System.nanoTime() < deadline) {
            try {
                last = this.api.status();
                refusedInARow = 0;
                idleInARow = last.idle() ? idleInARow + 1 : 0;
                if (idleInARow == 2) {
                    return;
                }
            }
            catch (RestClientException ex) {
                // A status request queued behind leftovers can time out; ask again. A callee that refuses
                // connections for a while has ended: waiting out the timeout would only hide that.
                lastError = ex;
                idleInARow = 0;
                refusedInARow = (ex.getMostSpecificCause() instanceof ConnectException) ? refusedInARow + 1 : 0;
                if (refusedInARow == REFUSED_BEFORE_GIVING_UP) {
                    throw new IllegalStateException("The callee refuses connections (" + ex.getMostSpecificCause()
                            + "); it has ended or stopped listening. See its log.", ex);
                }
            }
            pause();
        }
        throw new IllegalStateException("The callee did not become idle within " + timeout + "; last status: " + last
                + ((lastError != null) ? "; last error: " + lastError.getMostSpecificCause() : ""), lastError);
    }

    /** Closes pooled connections so that the next mode starts from an empty pool, as the first one did. */
    public void closeIdleConnections() {
        this.connections.closeIdle(TimeValue.ZERO_MILLISECONDS);
    }

    private static void pause() {
        try {
            Thread.sleep(50);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the callee to become idle", ex);
        }
    }
}
