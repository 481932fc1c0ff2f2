package io.github.loombulkhead.benchmarks.http;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/** The paired harness's estimate of how much a client adds to the p50 of the client without a limiter. */
class HttpLatencyPairedTest {

    @Test
    void aClientAsFastAsThePlainOneAddsNothingDespiteRoundToRoundNoise() {
        // Two identical clients whose ratio of round p50s varies by about 21 % (the earlier run's noise), 100
        // rounds, over many runs: the plain mean of the ratios reads about +2 %.
        Random random = new Random(7);
        double sumGeometric = 0;
        double sumArithmetic = 0;
        int runs = 200;
        for (int run = 0; run < runs; run++) {
            double[] client = new double[100];
            double[] plain = new double[100];
            for (int r = 0; r < 100; r++) {
                plain[r] = 130 * Math.exp(0.1 * random.nextGaussian());
                client[r] = plain[r] * Math.exp(0.21 * random.nextGaussian());
            }
            sumGeometric += HttpLatencyPaired.added(client, plain)[0];
            sumArithmetic += IntStream.range(0, client.length).mapToDouble((r) -> client[r] / plain[r] - 1).average()
                .orElseThrow();
        }
        assertThat(sumGeometric / runs).isBetween(-0.005, 0.005);
        assertThat(sumArithmetic / runs).as("the biased estimate this replaced").isGreaterThan(0.015);
    }

    @Test
    void aClientTenPercentSlowerInEveryRoundAddsTenPercentWithNoSpread() {
        double[] plain = { 100, 120, 90, 110 };
        double[] client = Arrays.stream(plain).map((p50) -> p50 * 1.1).toArray();
        double[] added = HttpLatencyPaired.added(client, plain);
        assertThat(added[0]).isCloseTo(0.1, offset(1e-9));
        assertThat(added[1]).isCloseTo(0, offset(1e-9));
    }
}
