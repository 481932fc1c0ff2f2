package io.github.loombulkhead.http;

import java.util.List;

import io.github.loombulkhead.Bulkhead;

import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Tells which of an adaptive bulkhead's decreases a refusal made, for tests in front of a server that refuses at once:
 * its {@link #interceptor()} marks, on the calling thread, a call the server answered with the refusal status and the
 * calls in flight when it was sent. A decrease is applied by the thread whose sample asked for it, so a listener reads
 * the mark of that thread's latest call ({@link #sentWith()}). Unless another thread held the algorithm's or the
 * limit's lock meanwhile: then that thread's latest call decides (a success, or the ramp's timer thread, leaves the
 * decrease out; a refusal may claim a window's decrease, which {@link #medianFallenToPerSentWith} rides over).
 */
public final class RefusalMarks {

    private final ThreadLocal<Integer> refusedWith = ThreadLocal.withInitial(() -> 0);

    private final Bulkhead bulkhead;

    private final int refusalStatus;

    public RefusalMarks(Bulkhead bulkhead, int refusalStatus) {
        this.bulkhead = bulkhead;
        this.refusalStatus = refusalStatus;
    }

    /**
     * Goes after the bulkhead's interceptor: it runs under the permit and sees the answer before the permit's release
     * takes the sample. A call that fails (a timeout) leaves no mark of an earlier one behind.
     */
    public ClientHttpRequestInterceptor interceptor() {
        return (request, body, execution) -> {
            int inflight = this.bulkhead.getActiveCount();
            this.refusedWith.set(0);
            ClientHttpResponse response = execution.execute(request, body);
            this.refusedWith.set((response.getStatusCode().value() == this.refusalStatus) ? inflight : 0);
            return response;
        };
    }

    /** The calls in flight when this thread's latest call was sent, if the server refused it; 0 otherwise. */
    public int sentWith() {
        return this.refusedWith.get();
    }

    /** Of decreases given as { calls in flight when the refused call was sent, limit fallen to }: the median ratio. */
    public static double medianFallenToPerSentWith(List<int[]> atRefusals) {
        double[] ratios = atRefusals.stream().mapToDouble((d) -> (double) d[1] / d[0]).sorted().toArray();
        return ratios[ratios.length / 2];
    }

    /** The decreases as "sent with -> fell to", for an assertion's description. */
    public static List<String> describe(List<int[]> atRefusals) {
        return atRefusals.stream().map((d) -> d[0] + "->" + d[1]).toList();
    }
}
