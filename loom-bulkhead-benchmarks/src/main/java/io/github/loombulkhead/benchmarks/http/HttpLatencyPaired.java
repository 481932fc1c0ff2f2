package io.github.loombulkhead.benchmarks.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.github.loombulkhead.benchmarks.jmh.LoopbackClients;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * Calls the loopback server through every client variant in interleaved rounds — each round runs
 * {@value #CALLS_PER_ROUND} calls per variant, variants in a fresh random order — so whatever the machine does
 * meanwhile hits all variants alike. Run as {@code HttpLatencyPaired <warmupMillis> <rounds>}; prints
 * {@code RESULT [json]} with one {@link HttpPairedResult} per client. The per-round ratios to the client without a
 * limiter are averaged geometrically (the mean of their logarithms): their plain mean would read a client exactly as
 * fast as that one about 2 % slower, with this harness's round-to-round noise (the mean of a ratio exceeds the ratio
 * of the means).
 */
public final class HttpLatencyPaired {

    /** Calls per variant in one round. */
    public static final int CALLS_PER_ROUND = 200;

    /** Two-sided 99.9 % normal quantile, for the confidence half-width across rounds. */
    private static final double Z_999 = 3.29;

    private HttpLatencyPaired() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: HttpLatencyPaired <warmupMillis> <rounds>");
        }
        List<HttpPairedResult> results = measure(Duration.ofMillis(Long.parseLong(args[0])), Integer.parseInt(args[1]));
        System.out.println("RESULT " + JsonMapper.shared().writeValueAsString(results));
    }

    /** Warms every client up for {@code warmup}, then measures {@code rounds} interleaved rounds. */
    public static List<HttpPairedResult> measure(Duration warmup, int rounds) {
        if (rounds < 2) {
            throw new IllegalArgumentException("rounds must be at least 2 but was " + rounds);
        }
        try (LoopbackClients loopback = new LoopbackClients()) {
            Map<String, RestClient> clients = loopback.clients();
            List<String> names = new ArrayList<>(clients.keySet());
            long warmupEnd = System.nanoTime() + warmup.toNanos();
            do {
                for (RestClient client : clients.values()) {
                    LoopbackClients.call(client);
                }
            }
            while (System.nanoTime() < warmupEnd);
            Map<String, long[]> all = new LinkedHashMap<>();
            Map<String, double[]> roundP50 = new LinkedHashMap<>();
            for (String name : names) {
                all.put(name, new long[rounds * CALLS_PER_ROUND]);
                roundP50.put(name, new double[rounds]);
            }
            Random random = new Random(42);
            long[] round = new long[CALLS_PER_ROUND];
            for (int r = 0; r < rounds; r++) {
                List<String> order = new ArrayList<>(names);
                Collections.shuffle(order, random);
                for (String name : order) {
                    RestClient client = clients.get(name);
                    for (int i = 0; i < CALLS_PER_ROUND; i++) {
                        long start = System.nanoTime();
                        LoopbackClients.call(client);
                        round[i] = System.nanoTime() - start;
                    }
                    System.arraycopy(round, 0, all.get(name), r * CALLS_PER_ROUND, CALLS_PER_ROUND);
                    roundP50.get(name)[r] = percentile(round.clone(), 0.5);
                }
            }
            double[] plain = roundP50.get("plain");
            List<HttpPairedResult> results = new ArrayList<>();
            for (String name : names) {
                long[] samples = all.get(name);
                double[] added = added(roundP50.get(name), plain);
                results.add(new HttpPairedResult(name, rounds, samples.length, percentile(samples, 0.5) / 1e3,
                        percentile(samples, 0.99) / 1e3, added[0], added[1]));
            }
            return results;
        }
    }

    /**
     * How much slower {@code client} is than {@code plain}, from their p50 in each round: the geometric mean of the
     * per-round ratios minus 1, and its 99.9 % confidence half-width.
     */
    static double[] added(double[] client, double[] plain) {
        double[] logRatios = new double[client.length];
        for (int r = 0; r < client.length; r++) {
            logRatios[r] = Math.log(client[r] / plain[r]);
        }
        double geometricMean = Math.exp(mean(logRatios));
        return new double[] { geometricMean - 1, geometricMean * Z_999 * standardError(logRatios) };
    }

    private static double percentile(long[] values, double p) {
        Arrays.sort(values);
        return values[Math.max(0, (int) Math.ceil(p * values.length) - 1)];
    }

    private static double mean(double[] values) {
        return Arrays.stream(values).average().orElse(Double.NaN);
    }

    private static double standardError(double[] values) {
        double mean = mean(values);
        double squares = Arrays.stream(values).map((v) -> (v - mean) * (v - mean)).sum();
        return Math.sqrt(squares / (values.length - 1) / values.length);
    }
}
