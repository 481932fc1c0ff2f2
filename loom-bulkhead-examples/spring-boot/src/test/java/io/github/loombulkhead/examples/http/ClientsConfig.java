package io.github.loombulkhead.examples.http;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.service.registry.ImportHttpServices;

// tag::clients-config[]
@Configuration
@ImportHttpServices(group = "callee", types = CalleeClient.class)
class ClientsConfig {
}
// end::clients-config[]
