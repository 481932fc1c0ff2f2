package io.github.loombulkhead.http;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadListener;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Both algorithms in front of a real loopback server that answers {@code 429} at once when it serves 40 requests
 * already, through a RestClient over Apache HttpClient 5: the refusals come back in a few milliseconds, against
 * 80 ms for an answer. {@code aimd} takes a tenth off the limit at a refusal instead of a quarter; {@code gradient}
 * falls just below the requests the server held when it refused one more. The calls that start below the limit a
 * refusal fell to nearly all succeed, so the refusals hardly count as failing whatever the load.
 */
@ExtendWith(LoopbackServerExtension.class)
class AdaptiveAgainstARefusingServerTest {

    private static final int CAPACITY = 40;

    private static final int CALLS = 4000;

    private static final int WARM_UP = 1500;

    @AutoClose
    private final Resources resources = new Resources();

    @Test
    void aimdFallsByATenthAtARefusalAndKeepsTheServerNearlyFull(LoopbackServer server) throws InterruptedException {
        Bulkhead bulkhead = bulkhead(AdaptiveLimitConfig.Algorithm.AIMD);
        Run run = run(bulkhead, server);
        assertThat(run.refused()).isEqualTo(server.refused()).isLessThan(CALLS / 10);
        assertThat(bulkhead.getLimitAlgorithm().getEstimates()).containsEntry("backgroundDropShare", 0.0);
        List<int[]> decreases = run.decreases();
        assertThat(decreases).as("decreases after the warm-up").hasSizeGreaterThanOrEqualTo(5);
        // A quarter off would leave at most 0.75 of the limit; a tenth off, 0.9 (a refusal that the machine held up
        // past a quarter of an answer's time falls by a quarter, so not every one needs to).
        long byATenth = decreases.stream().filter((d) -> d[1] >= 0.85 * d[0]).count();
        assertThat(byATenth).as("decreases by about a tenth, of %d", decreases.size())
            .isGreaterThanOrEqualTo(decreases.size() * 8 / 10);
    }

    @Test
    void gradientFallsJustBelowWhatTheServerHeldAndKeepsItFull(LoopbackServer server) throws InterruptedException {
        Bulkhead bulkhead = bulkhead(AdaptiveLimitConfig.Algorithm.GRADIENT);
        Run run = run(bulkhead, server);
        assertThat(run.refused()).isEqualTo(server.refused()).isLessThan(CALLS / 20);
        // A refusal now and then may be held up, or meet answers still on their way back: below 1 %, not the 2 % cap.
        assertThat(bulkhead.getLimitAlgorithm().getEstimates().get("backgroundRefusalShare").doubleValue())
            .isLessThan(0.01);
        // Only the decreases a refusal made: on a machine whose cores other processes keep busy, the round trips of
        // the answers inflate too, and the windows cut for that.
        List<int[]> atRefusals = run.atRefusals();
        assertThat(atRefusals).as("decreases at a refusal after the warm-up").hasSizeGreaterThanOrEqualTo(5);
        // A fifth off leaves 0.8 of the limit (33 of 41, sent with 41 in flight); just below the 40 the server held,
        // 0.95 (39). Now and then a refusal before any call sent since the last decrease succeeded takes a fifth off.
        assertThat(RefusalMarks.medianFallenToPerSentWith(atRefusals))
            .as("the median limit fallen to / calls in flight at a refusal, of %s", RefusalMarks.describe(atRefusals))
            .isBetween(0.9, 1.0);
    }

    private static Bulkhead bulkhead(AdaptiveLimitConfig.Algorithm algorithm) {
        return new Bulkhead("refusing", BulkheadConfig.custom()
            .maxConcurrentCalls(200)
            .maxWaitDuration(Duration.ofSeconds(30))
            .adaptive(AdaptiveLimitConfig.custom().algorithm(algorithm).initialLimit(20).build())
            .build());
    }

    /** 100 callers make {@value #CALLS} calls through {@code bulkhead} to the server's limited endpoint. */
    private Run run(Bulkhead bulkhead, LoopbackServer server) throws InterruptedException {
        AtomicInteger done = new AtomicInteger();
        // Every decrease after the warm-up: the limit before and after it.
        List<int[]> decreases = new CopyOnWriteArrayList<>();
        RefusalMarks marks = new RefusalMarks(bulkhead, 429);
        // Every decrease after the warm-up that a refusal made: { in flight when it was sent, fell to }.
        List<int[]> atRefusals = new CopyOnWriteArrayList<>();
        bulkhead.addListener(new BulkheadListener() {
            @Override
            public void onLimitChanged(Bulkhead b, int oldLimit, int newLimit) {
                if (newLimit < oldLimit && done.get() >= WARM_UP) {
                    decreases.add(new int[] { oldLimit, newLimit });
                    int sentWith = marks.sentWith();
                    if (sentWith > 0) {
                        atRefusals.add(new int[] { sentWith, newLimit });
                    }
                }
            }
        });
        RestClient client = RestClient.builder()
            .requestFactory(ClientKind.HTTP_COMPONENTS.create(bulkhead, Duration.ofSeconds(5), this.resources))
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead))
            .requestInterceptor(marks.interceptor())
            .build();
        AtomicInteger refused = new AtomicInteger();
        Callers.start(100, () -> {
            while (done.get() < CALLS) {
                try {
                    client.get().uri(server.uri("/limited?ms=80&max=" + CAPACITY)).retrieve().toBodilessEntity();
                }
                catch (HttpClientErrorException.TooManyRequests ex) {
                    refused.incrementAndGet();
                }
                finally {
                    done.incrementAndGet();
                }
            }
        }).join();
        return new Run(refused.get(), decreases, atRefusals);
    }

    private record Run(int refused, List<int[]> decreases, List<int[]> atRefusals) {
    }
}
