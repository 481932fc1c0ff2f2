package io.github.loombulkhead.autoconfigure;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** {@link BulkheadConfigMapper#validate()} checks every group of settings, whether or not its feature is on. */
class BulkheadConfigMapperTest {

    private final LoomBulkheadProperties properties = new LoomBulkheadProperties();

    private final BulkheadConfigMapper mapper = new BulkheadConfigMapper(this.properties, (key) -> null);

    @Test
    void theDefaultsAreValid() {
        assertThatNoException().isThrownBy(this.mapper::validate);
    }

    @Test
    void aBadPerHostTemplateFailsNamingItsKey() {
        this.properties.getHttp().getPerHost().getTemplate().setQueueCapacity(-1);
        assertThat(catchThrowableOfType(InvalidBulkheadPropertyException.class, this.mapper::validate).getProperty())
            .isEqualTo("loom.bulkhead.http.per-host.template.queue-capacity");
    }

    @Test
    void aBadIntegrationSettingFailsNamingItsKey() {
        this.properties.getTaskExecution().setBulkhead(" ");
        assertThat(catchThrowableOfType(InvalidBulkheadPropertyException.class, this.mapper::validate).getProperty())
            .isEqualTo("loom.bulkhead.task-execution.bulkhead");
    }
}
