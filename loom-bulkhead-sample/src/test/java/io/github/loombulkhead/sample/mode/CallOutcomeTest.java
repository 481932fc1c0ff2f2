package io.github.loombulkhead.sample.mode;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

import com.netflix.concurrency.limits.Limiter;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpStatus;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Each call through a Netflix limiter tells it exactly one outcome, classified as the sample's contract says. */
class CallOutcomeTest {

    @Test
    void timeoutsFailedConnections503And429AreDrops() {
        assertThat(CallOutcome.of(new ResourceAccessException("I/O error", new SocketTimeoutException("Read timed out"))))
            .isEqualTo(CallOutcome.DROPPED);
        assertThat(CallOutcome.of(new ResourceAccessException("I/O error", new ConnectException("Connection refused"))))
            .isEqualTo(CallOutcome.DROPPED);
        assertThat(CallOutcome.of(new ResourceAccessException("I/O error", new ConnectTimeoutException("connect"))))
            .isEqualTo(CallOutcome.DROPPED);
        assertThat(CallOutcome.of(HttpServerErrorException.create(HttpStatus.SERVICE_UNAVAILABLE, "busy", null, null,
                null)))
            .isEqualTo(CallOutcome.DROPPED);
        assertThat(CallOutcome.of(new IllegalStateException("wrapped",
                HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS, "slow down", null, null, null))))
            .isEqualTo(CallOutcome.DROPPED);
    }

    @Test
    void otherFailuresAreIgnored() {
        assertThat(CallOutcome.of(HttpServerErrorException.create(HttpStatus.INTERNAL_SERVER_ERROR, "bug", null, null,
                null)))
            .isEqualTo(CallOutcome.IGNORED);
        assertThat(CallOutcome.of(HttpClientErrorException.create(HttpStatus.NOT_FOUND, "gone", null, null, null)))
            .isEqualTo(CallOutcome.IGNORED);
        assertThat(CallOutcome.of(new IllegalStateException("interrupted"))).isEqualTo(CallOutcome.IGNORED);
    }

    @Test
    void aCallReportsOneOutcomeAndRethrowsItsFailure() {
        RecordingListener listener = new RecordingListener();
        NetflixLimiterStrategy.call(listener, () -> {
        });
        ResourceAccessException timeout = new ResourceAccessException("I/O error", new SocketTimeoutException("late"));
        assertThatExceptionOfType(ResourceAccessException.class)
            .isThrownBy(() -> NetflixLimiterStrategy.call(listener, () -> {
                throw timeout;
            }))
            .isSameAs(timeout);
        assertThatExceptionOfType(IllegalArgumentException.class)
            .isThrownBy(() -> NetflixLimiterStrategy.call(listener, () -> {
                throw new IllegalArgumentException("bad request");
            }));
        assertThat(listener.outcomes).containsExactly("success", "dropped", "ignored");
    }

    private static final class RecordingListener implements Limiter.Listener {

        private final List<String> outcomes = new ArrayList<>();

        @Override
        public void onSuccess() {
            this.outcomes.add("success");
        }

        @Override
        public void onIgnore() {
            this.outcomes.add("ignored");
        }

        @Override
        public void onDropped() {
            this.outcomes.add("dropped");
        }
    }
}
