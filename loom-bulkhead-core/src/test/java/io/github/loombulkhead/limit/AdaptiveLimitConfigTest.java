package io.github.loombulkhead.limit;

import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Defaults, copies, and validation messages that name the field and the value. */
class AdaptiveLimitConfigTest {

    @Test
    void defaultsAreTheDocumentedValues() {
        AdaptiveLimitConfig defaults = AdaptiveLimitConfig.ofDefaults();
        assertThat(defaults.getAlgorithm()).isEqualTo(AdaptiveLimitConfig.Algorithm.GRADIENT);
        assertThat(defaults.getInitialLimit()).isEqualTo(100);
        assertThat(defaults.getMinLimit()).isEqualTo(1);
        assertThat(defaults.getMaxLimit()).isEqualTo(1000);
        assertThat(defaults.getIncreaseRatio()).isEqualTo(0.05);
        assertThat(defaults.getRttTolerance()).isEqualTo(1.15);
        assertThat(defaults.getWindowSamples()).isEqualTo(16);
        assertThat(defaults.getDropBackoff()).isEqualTo(0.8);
        assertThat(defaults.getDropTolerance()).isEqualTo(0.05);
        assertThat(defaults.getBackoffRatio()).isEqualTo(0.75);
        assertThat(AdaptiveLimitConfig.custom().build()).usingRecursiveComparison().isEqualTo(defaults);
        assertThat(LimitAlgorithm.of(defaults).getLimit()).isEqualTo(100);
    }

    @Test
    void fromCopiesEveryField() {
        AdaptiveLimitConfig base = AdaptiveLimitConfig.custom()
            .algorithm(AdaptiveLimitConfig.Algorithm.AIMD)
            .initialLimit(30)
            .minLimit(3)
            .maxLimit(300)
            .increaseRatio(0.1)
            .rttTolerance(1.5)
            .windowSamples(32)
            .dropBackoff(0.5)
            .dropTolerance(0)
            .backoffRatio(0.9)
            .build();
        assertThat(AdaptiveLimitConfig.from(base).build()).usingRecursiveComparison().isEqualTo(base);
        assertThat(base).hasToString("AdaptiveLimitConfig[algorithm=aimd, initialLimit=30, minLimit=3, maxLimit=300, "
                + "increaseRatio=0.1, rttTolerance=1.5, windowSamples=32, dropBackoff=0.5, dropTolerance=0.0, "
                + "backoffRatio=0.9]");
        assertThat(LimitAlgorithm.of(base).getName()).isEqualTo("aimd");
    }

    @Test
    void algorithmsAreFoundByTheirConfigurationNames() {
        assertThat(AdaptiveLimitConfig.Algorithm.ofName("gradient")).isEqualTo(AdaptiveLimitConfig.Algorithm.GRADIENT);
        assertThat(AdaptiveLimitConfig.Algorithm.ofName(" AIMD ")).isEqualTo(AdaptiveLimitConfig.Algorithm.AIMD);
        assertThatIllegalArgumentException().isThrownBy(() -> AdaptiveLimitConfig.Algorithm.ofName("vegas"))
            .withMessage("algorithm must be one of gradient, aimd but was 'vegas'");
        assertThatIllegalArgumentException().isThrownBy(() -> AdaptiveLimitConfig.Algorithm.ofName(null))
            .withMessage("algorithm must be one of gradient, aimd but was 'null'");
    }

    @Test
    void minAboveMaxNamesBothValues() {
        assertInvalid((b) -> b.minLimit(50).maxLimit(10).initialLimit(10), "maxLimit (10) must be at least minLimit (50)");
    }

    @Test
    void initialOutsideTheBoundsNamesAllThree() {
        assertInvalid((b) -> b.initialLimit(2).minLimit(5), "initialLimit (2) must be within minLimit (5) and maxLimit (1000)");
        assertInvalid((b) -> b.initialLimit(2000), "initialLimit (2000) must be within minLimit (1) and maxLimit (1000)");
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, -1 })
    void minBelowOneIsRejected(int min) {
        assertInvalid((b) -> b.minLimit(min), "minLimit must be at least 1 but was " + min);
    }

    @Test
    void everyParameterOutsideItsRangeNamesFieldAndValue() {
        assertInvalid((b) -> b.algorithm(null), "algorithm must not be null; use gradient or aimd");
        assertInvalid((b) -> b.increaseRatio(0), "increaseRatio must be above 0 and at most 1 but was 0.0");
        assertInvalid((b) -> b.increaseRatio(1.5), "increaseRatio must be above 0 and at most 1 but was 1.5");
        assertInvalid((b) -> b.rttTolerance(1.0), "rttTolerance must be above 1 and at most 10 but was 1.0");
        assertInvalid((b) -> b.rttTolerance(Double.NaN), "rttTolerance must be above 1 and at most 10 but was NaN");
        assertInvalid((b) -> b.windowSamples(0), "windowSamples must be between 1 and 10000 but was 0");
        assertInvalid((b) -> b.dropBackoff(1.0), "dropBackoff must be at least 0.1 and below 1 but was 1.0");
        assertInvalid((b) -> b.dropTolerance(-0.1), "dropTolerance must be at least 0 and below 1 but was -0.1");
        assertInvalid((b) -> b.backoffRatio(0.05), "backoffRatio must be at least 0.1 and below 1 but was 0.05");
        assertThatIllegalArgumentException().isThrownBy(() -> AdaptiveLimitConfig.from(null))
            .withMessage("base config must not be null");
    }

    private static void assertInvalid(Consumer<AdaptiveLimitConfig.Builder> change, String message) {
        AdaptiveLimitConfig.Builder builder = AdaptiveLimitConfig.custom();
        change.accept(builder);
        assertThatIllegalArgumentException().isThrownBy(builder::build).withMessage(message);
    }
}
