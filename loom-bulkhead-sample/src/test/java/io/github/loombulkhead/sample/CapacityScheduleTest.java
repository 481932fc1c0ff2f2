package io.github.loombulkhead.sample;

import java.time.Duration;
import java.util.List;

import io.github.loombulkhead.sample.report.Formats;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** {@code capacity@time} parsing, the fewest workers, and the piecewise Little's-law bound. */
class CapacityScheduleTest {

    private static final String PROPERTY = "loom.sample.callee.capacity-changes";

    @Test
    void parsesChangesInAnyDurationStyleIgnoringSpaces() {
        assertThat(CapacityChange.parseAll(PROPERTY, " 60@2s , 200@6500ms,10@PT8S")).containsExactly(
                new CapacityChange(60, 2_000), new CapacityChange(200, 6_500), new CapacityChange(10, 8_000));
        assertThat(CapacityChange.parseAll(PROPERTY, "60@1500")).as("plain milliseconds")
            .containsExactly(new CapacityChange(60, 1_500));
    }

    @Test
    void nothingOrBlankIsNoChange() {
        assertThat(CapacityChange.parseAll(PROPERTY, null)).isEmpty();
        assertThat(CapacityChange.parseAll(PROPERTY, "  ")).isEmpty();
    }

    @Test
    void badEntriesAreNamedWithTheExpectedForm() {
        assertRejected("60", "must be a comma-separated list of capacity@time such as 60@2s,200@6s, but '60' in '60' "
                + "is not");
        assertRejected("60@2s,", "but '' in '60@2s,' is not");
        assertRejected("60@2s@3s", "but '60@2s@3s' in '60@2s@3s' is not");
        assertRejected("@2s", "but '@2s' in '@2s' is not");
        assertRejected("sixty@2s", "the capacity in 'sixty@2s' must be a whole number of worker threads");
        assertRejected("0@2s", "the capacity in '0@2s' must be at least 1");
        assertRejected("60@soon", "the time in '60@soon' must be a duration since the mode started such as 2s or 1500ms");
        assertRejected("60@0s", "the time in '60@0s' must be at least 1ms after the mode started");
        assertRejected("60@-1s", "the time in '60@-1s' must be at least 1ms");
        assertRejected("60@9999999999999d", "the time in '60@9999999999999d' must be a duration since the mode "
                + "started such as 2s or 1500ms");
        assertRejected("60@6s,200@2s", "must list its changes in increasing time, but '200@2s' comes after 6000ms");
        assertRejected("60@2s,200@2s", "but '200@2s' comes after 2000ms");
    }

    @Test
    void minimumIsTheFewestWorkersAtAnyTime() {
        assertThat(new CapacitySchedule(200, List.of(new CapacityChange(60, 2_000), new CapacityChange(100, 6_000)))
            .minimum()).isEqualTo(60);
        assertThat(new CapacitySchedule(50, List.of(new CapacityChange(200, 1_000))).minimum()).isEqualTo(50);
        assertThat(new CapacitySchedule(50, List.of()).minimum()).isEqualTo(50);
    }

    @Test
    void scheduleRejectsChangesOutOfOrder() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new CapacitySchedule(200,
                    List.of(new CapacityChange(60, 2_000), new CapacityChange(100, 2_000))))
            .withMessageContaining("changes must be in increasing time");
    }

    @Test
    void boundWithoutChangesIsRequestsOverCapacityTimesLatency() {
        CapacitySchedule schedule = new CapacitySchedule(200, List.of());
        assertThat(schedule.littlesLawBound(1_000, Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(1_500));
        assertThat(schedule.littlesLawBound(4_000, Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(60));
        assertThat(schedule.littlesLawBound(1_000, Duration.ZERO)).isEqualTo(Duration.ZERO);
    }

    @Test
    void boundIsPiecewiseWhenTheCapacityChanges() {
        // 200 workers at 300 ms serve 2/3 of a request per ms. The drop at 2 s is complete at 2.3 s: 1,533.3 by
        // then, 1,940 more (60 workers) by 12 s, then the last 526.7 take 100 workers 1,580 ms: 13.58 s.
        CapacitySchedule schedule = new CapacitySchedule(200,
                List.of(new CapacityChange(60, 2_000), new CapacityChange(100, 12_000)));
        assertThat(schedule.littlesLawBound(4_000, Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(13_580));
        // Done within the second segment: 1,533.3 by 2.3 s, the other 466.7 at 0.2 per ms take 2,333.3 ms.
        assertThat(schedule.littlesLawBound(2_000, Duration.ofMillis(300)).toMillis()).isEqualTo(4_633);
        // Done before the first change: the changes do not matter.
        assertThat(schedule.littlesLawBound(1_000, Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(1_500));
        // The last request is answered exactly when the capacity changes: the change does not matter.
        assertThat(new CapacitySchedule(200, List.of(new CapacityChange(60, 1_500))).littlesLawBound(1_000,
                Duration.ofMillis(300)))
            .isEqualTo(Duration.ofMillis(1_500));
    }

    @Test
    void dropIsCompleteOneLatencyAfterTheChange() {
        // Busy workers finish their request, so 200 serve until 1.3 s: 866.7, then 133.3 at 100 workers take
        // 400 ms. A callee that serves its queue in order ends at 1.8 s (waves at 0, 0.3, 0.6 and 0.9 s, then 100
        // at 1.2 and 1.5 s); counting the drop from 1 s would give 2 s.
        CapacitySchedule halving = new CapacitySchedule(200, List.of(new CapacityChange(100, 1_000)));
        assertThat(halving.littlesLawBound(1_000, Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(1_700));
        // 200 then 10 from 1 ms: the first 200 are served by 300 ms whatever the drop (200.7 by 301 ms), the other
        // 199.3 at 10 per 300 ms take 5,980 ms. The callee ends at 6.3 s; counting the drop from 1 ms, 11.98 s.
        CapacitySchedule collapse = new CapacitySchedule(200, List.of(new CapacityChange(10, 1)));
        assertThat(collapse.littlesLawBound(400, Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(6_281));
    }

    @Test
    void theDocumentedExample() {
        // docs/sample-report.md: 1,000 requests, 300 ms, 60@1s,200@3s. 200 workers serve until 1.3 s: 866.7; the
        // other 133.3 at 60 workers take 666.7 ms, so 1,966.7 ms, shown as 1.97 s. The rise at 3 s comes too late.
        CapacitySchedule schedule = new CapacitySchedule(200,
                List.of(new CapacityChange(60, 1_000), new CapacityChange(200, 3_000)));
        Duration bound = schedule.littlesLawBound(1_000, Duration.ofMillis(300));
        assertThat(bound.toNanos()).isBetween(1_966_666_666L, 1_966_666_667L);
        assertThat(Formats.seconds(bound.toMillis())).isEqualTo("1.97 s");
    }

    @Test
    void capacityThatHalvesAndComesBack() {
        // 100@2s,200@6s with 4,000 requests and 300 ms (docs/sample-report.md): 200 workers until 2.3 s serve
        // 1,533.3, 100 until 6 s 1,233.3, and the last 1,233.3 take 200 workers 1,850 ms.
        CapacitySchedule schedule = new CapacitySchedule(200,
                List.of(new CapacityChange(100, 2_000), new CapacityChange(200, 6_000)));
        assertThat(schedule.littlesLawBound(4_000, Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(7_850));
    }

    @Test
    void capacityThatGrowsShortensTheBound() {
        CapacitySchedule schedule = new CapacitySchedule(50, List.of(new CapacityChange(200, 1_000)));
        // A rise is usable at once. 50 workers at 100 ms: 500 requests in the first second, the other 500 at 2 per
        // ms: 250 ms.
        assertThat(schedule.littlesLawBound(1_000, Duration.ofMillis(100))).isEqualTo(Duration.ofMillis(1_250));
    }

    private static void assertRejected(String text, String message) {
        assertThatExceptionOfType(SampleArgumentException.class).isThrownBy(() -> CapacityChange.parseAll(PROPERTY, text))
            .withMessageContaining(message)
            .withMessageStartingWith(PROPERTY);
    }
}
