package io.github.loombulkhead.autoconfigure.http;

import java.nio.file.Path;

import javax.xml.parsers.DocumentBuilderFactory;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.http.Callers;
import io.github.loombulkhead.http.LoopbackServer;
import io.github.loombulkhead.http.LoopbackServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;
import org.springframework.web.service.registry.ImportHttpServices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Adding the starter to an application built on {@code spring-boot-starter-restclient} changes no client that has
 * no bulkhead: the starter brings no HTTP client library that Spring Boot would detect and pick instead of the JDK
 * client (such as Apache HttpClient 5, whose default pool allows 5 connections per host). The application's class
 * path is modelled from what the starter's and core's POMs actually bring to it.
 */
@ExtendWith(LoopbackServerExtension.class)
class AddingTheStarterTest {

    private LoopbackServer callee;

    private ApplicationContextRunner contextRunner;

    @BeforeEach
    void setUp(LoopbackServer callee) {
        this.callee = callee;
        this.contextRunner = HttpServiceApplication.contextRunner(callee, "bounded")
            .withClassLoader(new FilteredClassLoader(packagesNotOnTheApplicationsClassPath()))
            .withUserConfiguration(ClientsConfiguration.class);
    }

    @Test
    void aRestClientWithoutABulkheadKeepsItsConcurrency() {
        this.contextRunner.run((context) -> {
            RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.callee.baseUrl()).build();
            Callers callers = Callers.start(20, () -> client.get().uri("/held").retrieve().body(String.class));
            // All 20 reach the server at once: no pool of 5 per host appeared with the starter.
            await().until(() -> this.callee.concurrent() == 20);
            this.callee.release();
            callers.join();
            assertThat(this.callee.maxConcurrent()).isEqualTo(20);
            assertThat(this.callee.requests()).isEqualTo(20);
            // Only CalleeClient's bulkhead exists, and these calls did not go through it.
            assertThat(context.getBean(BulkheadRegistry.class).getAllBulkheads()).singleElement()
                .satisfies((x) -> assertThat(x.getPermittedCount()).isZero());
        });
    }

    @Test
    void aBulkheadedClientIsBoundedByItsLimitAlone() {
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.x.max-concurrent-calls=7").run((context) -> {
            CalleeClient client = context.getBean(CalleeClient.class);
            Bulkhead x = context.getBean(BulkheadRegistry.class).bulkhead("x");
            HeldCalls.assertExactlyTheLimitReaches(this.callee, x, client::slow);
            assertThat(x.getCompletedCount()).isEqualTo(8);
        });
    }

    /** Apache HttpClient 5, unless the starter or core brings it to applications as a required dependency. */
    private static String[] packagesNotOnTheApplicationsClassPath() {
        boolean brought = bringsToApplications(Path.of("pom.xml"), "httpclient5")
                || bringsToApplications(Path.of("../loom-bulkhead-core/pom.xml"), "httpclient5");
        return brought ? new String[0] : new String[] { "org.apache.hc.client5", "org.apache.hc.core5" };
    }

    /** Whether {@code pom} declares {@code artifactId} as a dependency that the POM's users get too. */
    private static boolean bringsToApplications(Path pom, String artifactId) {
        try {
            Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile())
                .getDocumentElement();
            Element dependencies = child(project, "dependencies");
            if (dependencies == null) {
                return false;
            }
            NodeList nodes = dependencies.getElementsByTagName("dependency");
            for (int i = 0; i < nodes.getLength(); i++) {
                Element dependency = (Element) nodes.item(i);
                String scope = text(dependency, "scope", "compile");
                if (artifactId.equals(text(dependency, "artifactId", null))
                        && !Boolean.parseBoolean(text(dependency, "optional", "false"))
                        && (scope.equals("compile") || scope.equals("runtime"))) {
                    return true;
                }
            }
            return false;
        }
        catch (Exception ex) {
            throw new IllegalStateException("Could not read " + pom.toAbsolutePath(), ex);
        }
    }

    private static Element child(Element parent, String name) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                return element;
            }
        }
        return null;
    }

    private static String text(Element parent, String name, String defaultValue) {
        Element element = child(parent, name);
        return (element != null) ? element.getTextContent().trim() : defaultValue;
    }

    @Configuration(proxyBeanMethods = false)
    @ImportHttpServices(group = "bounded", types = CalleeClient.class)
    static class ClientsConfiguration {

    }
}
