package io.github.loombulkhead.sample.report;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A mode run by several replicas adds up to one entry whose totals are the replicas' own figures combined. */
class ReplicaTotalsTest {

    private final Report report = SampleReports.replicated();

    @Test
    void countsAreTheReplicasSumsAndEveryReplicaIsKept() {
        RunReport perProcess = this.report.runs().get(0);
        List<ReplicaReport> replicas = perProcess.replicas();
        assertThat(replicas).extracting(ReplicaReport::replica).containsExactly(0, 1, 2);
        assertThat(replicas).extracting(ReplicaReport::requests).containsExactly(334, 333, 333);
        assertThat(perProcess.requests()).isEqualTo(1_000);
        assertThat(perProcess.succeeded()).isEqualTo(314 + 312 + 311);
        assertThat(perProcess.failed()).isEqualTo(20 + 21 + 22);
        assertThat(perProcess.failures().readTimeout()).isEqualTo(63);
        assertThat(perProcess.successRate()).isEqualTo(937 / 1_000.0);
        assertThat(perProcess.durationMs()).as("the longest").isEqualTo(2_020);
        assertThat(perProcess.p99Ms()).as("the highest replica's").isEqualTo(2_000);
        assertThat(perProcess.calleePeakInFlight()).isEqualTo(200);
        assertThat(perProcess.peakPlatformThreads()).isEqualTo(3 * 33);
    }

    @Test
    void timelineAddsThePointsOfTheSameMomentAndCountsAnEndedReplicaAsDone() {
        RunReport perProcess = this.report.runs().get(0);
        List<ReplicaReport> replicas = perProcess.replicas();
        assertThat(perProcess.timeline()).hasSize(22);
        TimelinePoint fifth = perProcess.timeline().get(4);
        assertThat(fifth.inFlight()).isEqualTo(replicas.stream().mapToInt((r) -> r.timeline().get(4).inFlight()).sum());
        assertThat(fifth.limit()).as("the limit of each replica, added").isEqualTo(300);
        TimelinePoint last = perProcess.timeline().get(21);
        assertThat(last.elapsedMs()).isEqualTo(2_200);
        assertThat(replicas).extracting((r) -> r.timeline().get(r.timeline().size() - 1).completed())
            .as("each replica's requests ended")
            .containsExactly(334, 333, 333);
        assertThat(last.completed()).as("every replica's last count").isEqualTo(1_000);
        // Only the third replica's series reaches point 22: the two that ended count nothing in flight nor a limit.
        TimelinePoint thirdsLast = replicas.get(2).timeline().get(21);
        assertThat(last.inFlight()).isEqualTo(thirdsLast.inFlight());
        assertThat(last.limit()).isEqualTo(100);
        assertThat(last.platformThreads()).as("the ended replicas' JVMs still run")
            .isEqualTo(replicas.stream().mapToInt((r) -> r.timeline().get(r.timeline().size() - 1).platformThreads()).sum());
        assertThat(perProcess.peakInFlight())
            .isEqualTo(perProcess.timeline().stream().mapToInt(TimelinePoint::inFlight).max().orElseThrow());
    }
}
