package io.github.loombulkhead.benchmarks.adaptive;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The sweep of the capacity changes over many moments: where they fall, what a small run gives, its options. */
class StepPhaseSweepTest {

    @Test
    void spreadsTheMomentsEvenlyOverTheSpanFromTheFirst() {
        assertThat(StepPhaseSweep.moments(Duration.ofSeconds(30), Duration.ofSeconds(3), 4)).containsExactly(
                Duration.ofSeconds(30), Duration.ofMillis(30_750), Duration.ofMillis(31_500), Duration.ofMillis(32_250));
        assertThat(StepPhaseSweep.moments(Duration.ofMillis(1500), Duration.ofMillis(1500), 1))
            .containsExactly(Duration.ofMillis(1500));
    }

    @Test
    void runsEveryContenderThroughEveryChangeAtEachMoment() {
        List<StepPhaseSweep.Row> rows = StepPhaseSweep.run(CalleeModel.standard(), 2);
        assertThat(rows).extracting(StepPhaseSweep.Row::contender)
            .containsExactly(List.of(Contender.values()).stream().map(Contender::label).toArray(String[]::new));
        for (StepPhaseSweep.Row row : rows) {
            assertThat(row.down().first().getCount()).as(row.contender()).isEqualTo(2);
            assertThat(row.up().first().getCount()).as(row.contender()).isEqualTo(2);
            assertThat(row.halving().first().getCount()).as(row.contender()).isEqualTo(2);
        }
        StepPhaseSweep.Row gradient = rows.get(Contender.LOOM_GRADIENT.ordinal());
        // The gradient keeps most of the halved capacity busy and loses some calls at the change, as in the main table.
        assertThat(gradient.down().first().getAverage()).isBetween(0.9, 1.0);
        assertThat(gradient.down().first().getMin()).isLessThanOrEqualTo(gradient.down().first().getAverage());
        assertThat(gradient.halving().first().getMax()).isPositive();
        String table = StepPhaseSweep.render("the standard callee", 2, rows);
        assertThat(table).contains("Each change at 2 moments").contains("| **loom `gradient`** | 0.9")
            .contains("| Envoy gradient |");
        assertThat(table.lines().filter((line) -> line.startsWith("| "))).hasSize(rows.size() + 1);
    }

    @Test
    void rejectsATimesThatIsNotAWholeNumberFromOneToAThousand() {
        assertThat(StepPhaseSweep.times("20")).isEqualTo(20);
        for (String bad : new String[] { "0", "1001", "twenty", "" }) {
            assertThatIllegalArgumentException().isThrownBy(() -> StepPhaseSweep.times(bad))
                .withMessageContaining("--times=" + bad)
                .withMessageContaining("whole number from 1 to 1000");
        }
        assertThatIllegalArgumentException().isThrownBy(() -> StepPhaseSweep.main(new String[] { "--seeds=3" }))
            .withMessageContaining("Unknown option '--seeds=3'");
    }
}
