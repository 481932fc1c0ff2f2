package io.github.loombulkhead.sample;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which modes run by default, and where. */
class ModeTest {

    @Test
    void theNetflixModesRunByDefaultFromJdk24() {
        assertThat(Mode.defaults(24)).contains(Mode.NETFLIX_GRADIENT2, Mode.NETFLIX_VEGAS, Mode.NETFLIX_AIMD)
            .doesNotContain(Mode.LOOM_BULKHEAD_CLUSTER)
            .hasSize(Mode.values().length - 1);
        assertThat(Mode.NETFLIX_VEGAS.whyNotOn(24)).isEmpty();
    }

    @Test
    void beforeJdk24TheNetflixModesPinCarriersAndAreLeftOutWithTheReason() {
        assertThat(Mode.defaults(21)).doesNotContain(Mode.NETFLIX_GRADIENT2, Mode.NETFLIX_VEGAS, Mode.NETFLIX_AIMD)
            .contains(Mode.LOOM_BULKHEAD_ADAPTIVE)
            .hasSize(Mode.values().length - 4);
        assertThat(Mode.NETFLIX_AIMD.whyNotOn(23)).hasValueSatisfying((reason) -> assertThat(reason)
            .contains("pins a carrier thread per waiting virtual thread before JDK 24")
            .contains("this is JDK 23")
            .endsWith("Run the sample on JDK 24 or newer."));
        assertThat(Mode.LOOM_BULKHEAD_ADAPTIVE.whyNotOn(21)).isEmpty();
    }
}
