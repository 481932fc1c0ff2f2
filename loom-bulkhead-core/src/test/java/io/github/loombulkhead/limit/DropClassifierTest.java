package io.github.loombulkhead.limit;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.List;
import java.util.concurrent.TimeoutException;

import org.apache.hc.core5.http.ConnectionRequestTimeoutException;
import org.junit.jupiter.api.Test;

import org.springframework.web.client.ResourceAccessException;

import static org.assertj.core.api.Assertions.assertThat;

class DropClassifierTest {

    private final DropClassifier defaults = DropClassifier.ofDefaults();

    @Test
    void timeoutsAndRefusedConnectionsAreDropsAlsoAsACause() {
        assertThat(this.defaults.classify(new SocketTimeoutException("Read timed out"))).isEqualTo(Outcome.DROPPED);
        assertThat(this.defaults.classify(new ResourceAccessException("I/O error", new ConnectException("refused"))))
                .isEqualTo(Outcome.DROPPED);
        assertThat(this.defaults.classify(new IllegalStateException(new TimeoutException()))).isEqualTo(Outcome.DROPPED);
    }

    @Test
    void otherFailuresAreAnswers() {
        assertThat(this.defaults.classify(new IllegalArgumentException("bad input"))).isEqualTo(Outcome.SUCCESS);
        assertThat(this.defaults.classify(new IOException("Connection reset"))).isEqualTo(Outcome.SUCCESS);
    }

    @Test
    void aCallThatNeverReachedTheCalleeIsNoSample() {
        // A pooled connection not leased in time: HttpClient 5's exception is an InterruptedIOException, but
        // nothing was sent, so it tells nothing about the callee's load.
        assertThat(this.defaults.classify(new ResourceAccessException("I/O error",
                new ConnectionRequestTimeoutException("Timeout deadline: 5000 MILLISECONDS, actual: 5001 MILLISECONDS"))))
                .isEqualTo(Outcome.IGNORED);
        // An unknown host fails in microseconds: counted as an answer, its RTT would read as a callee without load.
        assertThat(this.defaults.classify(new ResourceAccessException("I/O error", new UnknownHostException("calle"))))
                .isEqualTo(Outcome.IGNORED);
        assertThat(this.defaults.classify(new IllegalStateException(new UnresolvedAddressException())))
                .isEqualTo(Outcome.IGNORED);
    }

    @Test
    void aCallThatNeverReachedTheCalleeIsNoSampleWhateverTypesAreConfigured() {
        DropClassifier everything = DropClassifier.of(List.of(Exception.class));

        assertThat(everything.classify(new UnknownHostException("calle"))).isEqualTo(Outcome.IGNORED);
        assertThat(everything.classify(new ConnectionRequestTimeoutException("no connection"))).isEqualTo(Outcome.IGNORED);
        assertThat(everything.classify(new IllegalStateException("answered"))).isEqualTo(Outcome.DROPPED);
    }

    @Test
    void whetherACallWasNeverSentIsToldByAnyCause() {
        assertThat(DropClassifier.neverSent(new RuntimeException(new ConnectionRequestTimeoutException("x")))).isTrue();
        assertThat(DropClassifier.neverSent(new UnknownHostException("calle"))).isTrue();
        assertThat(DropClassifier.neverSent(new ConnectException("refused"))).isFalse();
        assertThat(DropClassifier.neverSent(null)).isFalse();
    }
}
