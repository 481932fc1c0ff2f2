package io.github.loombulkhead.examples.server;

import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.github.loombulkhead.autoconfigure.server.LoomBulkheadServerAutoConfiguration;
import io.github.loombulkhead.autoconfigure.server.ServerBulkheadRejectionHandler;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the rejection handler of docs/server.md in a servlet context with the inbound bulkhead on. */
class ServerRejectionConfigTest {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class,
                LoomBulkheadServerAutoConfiguration.class))
        .withUserConfiguration(ServerRejectionConfig.class)
        .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.server.enabled=true");

    @Test
    void handlerReplacesTheProblemDetailsAnswer() {
        this.contextRunner.run((context) -> {
            ServerBulkheadRejectionHandler handler = context.getBean(ServerBulkheadRejectionHandler.class);
            assertThat(handler).isSameAs(context.getBean("tooManyRequests"));
            MockHttpServletResponse response = new MockHttpServletResponse();
            handler.reject(new MockHttpServletRequest("GET", "/api/orders"), response,
                    new BulkheadRejectedException("server", RejectionReason.QUEUE_FULL, null));
            assertThat(response.getStatus()).isEqualTo(429);
            assertThat(response.getHeader("Retry-After")).isEqualTo("5");
            assertThat(response.getContentAsString()).isEqualTo("busy: queue-full");
        });
    }
}
