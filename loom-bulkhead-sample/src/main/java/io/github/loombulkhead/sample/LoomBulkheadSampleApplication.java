package io.github.loombulkhead.sample;

import io.github.loombulkhead.sample.launch.ExitWithParent;
import io.github.loombulkhead.sample.launch.NativeMemoryTrackingRelauncher;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The sample: with {@code --loom.sample.run=compare} it starts the callee in its own JVM, runs every mode,
 * prints the table, writes the report and exits; otherwise it stays up as a web application (the caller,
 * or with {@code --loom.sample.role=callee} the slow service).
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties.class)
public class LoomBulkheadSampleApplication {

    @Bean
    Scenario scenario(SampleProperties properties) {
        return Scenario.from(properties);
    }

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(LoomBulkheadSampleApplication.class);
        application.addListeners(new ExitWithParent(), new NativeMemoryTrackingRelauncher());
        ConfigurableApplicationContext context = application.run(args);
        SampleProperties properties = context.getBean(SampleProperties.class);
        if ((properties.isCompare() || properties.isServerCompare()) && properties.role() == SampleProperties.Role.CALLER) {
            System.exit(SpringApplication.exit(context));
        }
    }
}
