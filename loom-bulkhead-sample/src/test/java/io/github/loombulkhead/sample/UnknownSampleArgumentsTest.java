package io.github.loombulkhead.sample;

import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UnknownSampleArgumentsTest {

    private final ClassLoader classLoader = getClass().getClassLoader();

    @Test
    void theSettingsAreTheLoomSampleKeysOfTheBuildsMetadata() {
        Set<String> settings = UnknownSampleArguments.settings(this.classLoader);
        assertThat(settings).contains("loom.sample.requests", "loom.sample.modes", "loom.sample.callee.capacity-changes",
                "loom.sample.adaptive.max-limit", "loom.sample.server.setups", "loom.sample.replica.index")
            .allMatch((setting) -> setting.startsWith(UnknownSampleArguments.PREFIX));
    }

    @Test
    void aMisspelledSettingIsRefusedWithTheNearestOne() {
        assertThatThrownBy(() -> check("--loom.sample.reqests=4000", "--loom.sample.modes=thread-pool"))
            .isInstanceOf(SampleArgumentException.class)
            .hasMessageStartingWith("--loom.sample.reqests sets nothing: there is no such setting; did you mean "
                    + "--loom.sample.requests? The loom.sample settings are: ")
            .hasMessageContaining("loom.sample.warmup-requests");
        assertThatThrownBy(() -> check("--loom.sample.server.concurency=50"))
            .hasMessageContaining("did you mean --loom.sample.server.concurrency?");
    }

    @Test
    void aSettingNothingResemblesIsRefusedWithoutAGuess() {
        assertThatThrownBy(() -> check("--loom.sample.turbo=true"))
            .isInstanceOf(SampleArgumentException.class)
            .hasMessageStartingWith("--loom.sample.turbo sets nothing: there is no such setting. The loom.sample "
                    + "settings are: ");
    }

    @Test
    void everyRelaxedSpellingOfASettingAndItsElementsPass() {
        assertThatNoException().isThrownBy(() -> check("--loom.sample.warmupRequests=0",
                "--loom.sample.read_timeout=5s", "--loom.sample.callee.jvm-arguments[0]=-Xmx1g",
                "--loom.sample.callee.capacity-changes=60@2s", "--spring.main.banner-mode=off", "--other.key=1"));
    }

    private void check(String... arguments) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new SimpleCommandLinePropertySource(arguments));
        UnknownSampleArguments.check(environment, this.classLoader);
    }
}
