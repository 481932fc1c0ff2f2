package io.github.loombulkhead.examples.docs;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dependencies the README lists are those the example applications are built with: every Maven and Gradle
 * block under a {@code <!-- dependencies: path/pom.xml -->} line names exactly the compile dependencies of that
 * pom (so the quick-start tests run with what a user adds), and every version it gives is the one the build uses.
 */
class DocsDependenciesTest {

    private static final Pattern XML_DEPENDENCY = Pattern.compile("<dependency>\\s*<groupId>([^<]+)</groupId>\\s*"
            + "<artifactId>([^<]+)</artifactId>\\s*(?:<version>([^<]+)</version>\\s*)?</dependency>");

    private static final Pattern GRADLE_DEPENDENCY = Pattern.compile("implementation\\(\"([^:\"]+):([^:\"]+)(?::([^\"]+))?\"\\)");

    private static final String LOOM_GROUP = "io.github.loombulkhead";

    @Test
    void eachQuickStartListsItsDependenciesForMavenAndGradle() {
        Map<String, List<String>> languages = new LinkedHashMap<>();
        for (Markdown.Block block : dependencyBlocks()) {
            languages.computeIfAbsent(block.value(), (pom) -> new ArrayList<>()).add(block.language());
        }
        assertThat(languages).containsOnlyKeys("loom-bulkhead-examples/plain-java/pom.xml",
                "loom-bulkhead-examples/spring-boot/pom.xml");
        languages.values().forEach((blocks) -> assertThat(blocks).containsExactlyInAnyOrder("xml", "kotlin"));
    }

    @Test
    void listedDependenciesAreThoseOfTheExampleApplication() throws Exception {
        for (Markdown.Block block : dependencyBlocks()) {
            Map<String, String> listed = listed(block);
            assertThat(listed.keySet()).as("dependencies listed at %s", block.where())
                .containsExactlyInAnyOrderElementsOf(compileDependencies(Markdown.ROOT.resolve(block.value())));
        }
    }

    @Test
    void listedVersionsAreTheVersionsTheBuildUses() throws Exception {
        String projectVersion = projectVersion();
        for (Markdown.Block block : dependencyBlocks()) {
            for (Map.Entry<String, String> dependency : listed(block).entrySet()) {
                String version = dependency.getValue();
                if (version == null) {
                    assertThat(dependency.getKey()).as("%s: only Spring Boot manages versions", block.where())
                        .doesNotStartWith(LOOM_GROUP + ":");
                }
                else if (dependency.getKey().startsWith(LOOM_GROUP + ":")) {
                    assertThat(version).as("%s at %s", dependency.getKey(), block.where()).isEqualTo(projectVersion);
                }
                else {
                    assertThat(jarOnClassPath(dependency.getKey(), version))
                        .as("%s:%s at %s is the version on the class path", dependency.getKey(), version, block.where())
                        .isTrue();
                }
            }
        }
    }

    private static List<Markdown.Block> dependencyBlocks() {
        List<Markdown.Block> blocks = Markdown.blocks(Markdown.ROOT.resolve("README.md"))
            .stream()
            .filter((block) -> "dependencies".equals(block.kind()))
            .toList();
        assertThat(blocks).as("dependency blocks in README.md").isNotEmpty();
        return blocks;
    }

    /** groupId:artifactId to version (null when not given) of a Maven or Gradle (Kotlin) block. */
    private static Map<String, String> listed(Markdown.Block block) {
        Matcher dependency = switch (block.language()) {
            case "xml" -> XML_DEPENDENCY.matcher(block.text());
            case "kotlin" -> GRADLE_DEPENDENCY.matcher(block.text());
            default -> throw new AssertionError(block.where() + ": dependencies in " + block.language());
        };
        Map<String, String> listed = new LinkedHashMap<>();
        while (dependency.find()) {
            listed.put(dependency.group(1) + ":" + dependency.group(2), dependency.group(3));
        }
        return listed;
    }

    /** groupId:artifactId of the dependencies of {@code pom} outside the test scope. */
    private static List<String> compileDependencies(Path pom) throws Exception {
        Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        Element dependencies = (Element) document.getDocumentElement().getElementsByTagName("dependencies").item(0);
        List<String> coordinates = new ArrayList<>();
        NodeList children = dependencies.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element dependency && !"test".equals(child(dependency, "scope"))) {
                coordinates.add(child(dependency, "groupId") + ":" + child(dependency, "artifactId"));
            }
        }
        return coordinates;
    }

    private static String projectVersion() throws Exception {
        Document document = DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(Markdown.ROOT.resolve("pom.xml").toFile());
        return child(document.getDocumentElement(), "version");
    }

    private static String child(Element element, String name) {
        for (Node node = element.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element child && child.getTagName().equals(name)) {
                return child.getTextContent().strip();
            }
        }
        return null;
    }

    /** Whether the jar of {@code groupId:artifactId} at {@code version} is on the class path (Maven repository layout). */
    private static boolean jarOnClassPath(String coordinates, String version) throws IOException {
        String[] parts = coordinates.split(":");
        String jar = "/" + parts[0].replace('.', '/') + "/" + parts[1] + "/" + version + "/" + parts[1] + "-" + version
                + ".jar!/META-INF/MANIFEST.MF";
        for (URL manifest : Collections.list(DocsDependenciesTest.class.getClassLoader().getResources("META-INF/MANIFEST.MF"))) {
            if (manifest.toString().endsWith(jar)) {
                return true;
            }
        }
        return false;
    }
}
