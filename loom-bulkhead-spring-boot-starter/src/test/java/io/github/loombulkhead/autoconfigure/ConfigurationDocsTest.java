package io.github.loombulkhead.autoconfigure;

import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@code docs/configuration.md} in sync with the configuration metadata the build generates from
 * {@link LoomBulkheadProperties}: every key with its type, default and description, and the keys of each
 * map entry ({@code <name>}, {@code <group>}) against the fields of the entry type.
 */
class ConfigurationDocsTest {

    private static final Path METADATA = Path.of("target/classes/META-INF/spring-configuration-metadata.json");

    private static final Path DOCS = Path.of("../docs/configuration.md");

    private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\|.*$");

    private static final Pattern ENTRY_KEY = Pattern.compile("^(.+)\\.<(\\w+)>\\.([a-z-]+(?:\\.[a-z-]+)*)$");

    @Test
    void everyGeneratedPropertyIsDocumentedExactly() throws IOException {
        Map<String, String> expected = expectedRows();
        Map<String, String> documented = documentedRows();
        List<String> problems = new ArrayList<>();
        expected.forEach((key, row) -> {
            String actual = documented.get(key);
            if (actual == null) {
                problems.add("missing row:\n  " + row);
            }
            else if (!actual.equals(row)) {
                problems.add("row differs:\n  docs:     " + actual + "\n  expected: " + row);
            }
        });
        documented.keySet()
            .stream()
            .filter((key) -> !expected.containsKey(key) && !ENTRY_KEY.matcher(key).matches())
            .forEach((key) -> problems.add("documented key that does not exist: " + key));
        assertThat(problems).as("docs/configuration.md is out of sync with %s; expected rows:%n%s%n", METADATA,
                String.join("\n", expected.values())).isEmpty();
    }

    @Test
    void mapEntryKeysMatchTheEntryType() throws IOException {
        Map<String, Set<String>> documented = new TreeMap<>();
        for (String key : documentedRows().keySet()) {
            Matcher entry = ENTRY_KEY.matcher(key);
            if (entry.matches()) {
                documented.computeIfAbsent(entry.group(1), (prefix) -> new TreeSet<>()).add(entry.group(3));
            }
        }
        Map<String, Set<String>> expected = new TreeMap<>();
        for (Map<String, Object> property : properties()) {
            String type = (String) property.get("type");
            if (type.startsWith("java.util.Map<java.lang.String,io.github.loombulkhead")) {
                String valueType = type.substring(type.indexOf(',') + 1, type.length() - 1);
                expected.put((String) property.get("name"), fieldsOf(valueType));
            }
        }
        assertThat(documented).as("per-entry keys in docs/configuration.md (map property -> fields)")
            .isEqualTo(expected);
    }

    private static Map<String, String> expectedRows() throws IOException {
        Map<String, String> rows = new TreeMap<>();
        for (Map<String, Object> property : properties()) {
            String name = (String) property.get("name");
            rows.put(name, "| `" + name + "` | " + simpleType((String) property.get("type")) + " | "
                    + defaultValue(property.get("defaultValue")) + " | "
                    + escape((String) property.getOrDefault("description", "")) + " |");
        }
        return rows;
    }

    private static Map<String, String> documentedRows() throws IOException {
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(DOCS)) {
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                rows.put(row.group(1), line);
            }
        }
        return rows;
    }

    private static List<Map<String, Object>> properties() throws IOException {
        return JsonPath.read(Files.readString(METADATA), "$.properties");
    }

    private static Set<String> fieldsOf(String className) {
        try {
            Set<String> fields = new TreeSet<>();
            addFields(Class.forName(className.replace("LoomBulkheadProperties.", "LoomBulkheadProperties$")), "", fields);
            return fields;
        }
        catch (ReflectiveOperationException | java.beans.IntrospectionException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Settable properties of {@code type}, and those of nested groups (read-only, of a properties type) by path. */
    private static void addFields(Class<?> type, String prefix, Set<String> fields)
            throws java.beans.IntrospectionException {
        for (PropertyDescriptor descriptor : Introspector.getBeanInfo(type, Object.class).getPropertyDescriptors()) {
            String name = prefix + descriptor.getName().replaceAll("([A-Z])", "-$1").toLowerCase();
            if (descriptor.getWriteMethod() != null) {
                fields.add(name);
            }
            else if (descriptor.getPropertyType().getEnclosingClass() == LoomBulkheadProperties.class) {
                addFields(descriptor.getPropertyType(), name + ".", fields);
            }
        }
    }

    static String simpleType(String type) {
        return type.replaceAll("[a-z0-9]+(\\.[a-z0-9]+)*\\.([A-Z])", "$2")
            .replace("LoomBulkheadProperties$", "")
            .replace(",", ", ")
            .replace("<", "\\<")
            .replace(">", "\\>");
    }

    private static String defaultValue(Object value) {
        if (value == null) {
            return "-";
        }
        if (value instanceof List<?> list) {
            // As written in a properties file.
            return "`" + String.join(",", list.stream().map(String::valueOf).toList()) + "`";
        }
        return (value instanceof String text && text.isEmpty()) ? "`\"\"`" : "`" + value + "`";
    }

    private static String escape(String text) {
        return text.replace("|", "\\|").replace("<", "\\<").replace(">", "\\>");
    }
}
