package io.github.loombulkhead.examples.boot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.service.registry.ImportHttpServices;

// tag::application[]
@SpringBootApplication
@ImportHttpServices(group = "callee", types = CalleeClient.class)
public class Application {

    public static void main(String[] args) {
        SpringApplication.run(Application.class, args);
    }
}
// end::application[]
