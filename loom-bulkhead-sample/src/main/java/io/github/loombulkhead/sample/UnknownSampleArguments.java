package io.github.loombulkhead.sample;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.env.CommandLinePropertySource;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;

/**
 * Refuses a {@code --loom.sample.*} argument that sets nothing, such as {@code --loom.sample.reqests=4000}: Spring Boot
 * would ignore it, and a comparison would run its defaults for minutes while the user believes it ran theirs. The
 * settings are the {@code loom.sample} keys of the configuration metadata the build writes; without that metadata
 * (run from classes compiled without the annotation processor) nothing is checked.
 */
final class UnknownSampleArguments {

    static final String PREFIX = "loom.sample.";

    private static final String METADATA = "META-INF/spring-configuration-metadata.json";

    private UnknownSampleArguments() {
    }

    /** @throws SampleArgumentException naming the first unknown argument and the nearest setting */
    static void check(ConfigurableEnvironment environment, ClassLoader classLoader) {
        PropertySource<?> arguments = environment.getPropertySources()
            .get(CommandLinePropertySource.COMMAND_LINE_PROPERTY_SOURCE_NAME);
        if (!(arguments instanceof EnumerablePropertySource<?> enumerable)) {
            return;
        }
        Set<String> settings = settings(classLoader);
        if (settings.isEmpty()) {
            return;
        }
        for (String name : enumerable.getPropertyNames()) {
            if (name.startsWith(PREFIX) && !isSetting(name, settings)) {
                throw new SampleArgumentException(unknown(name, settings));
            }
        }
    }

    /** The {@code loom.sample} properties of every configuration metadata file on the class path. */
    static Set<String> settings(ClassLoader classLoader) {
        Set<String> settings = new TreeSet<>();
        try {
            for (URL metadata : Collections.list(classLoader.getResources(METADATA))) {
                try (InputStream in = metadata.openStream()) {
                    Map<String, Object> parsed = JsonParserFactory.getJsonParser()
                        .parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                    if (parsed.get("properties") instanceof List<?> properties) {
                        for (Object property : properties) {
                            if (property instanceof Map<?, ?> described && described.get("name") instanceof String name
                                    && name.startsWith(PREFIX)) {
                                settings.add(name);
                            }
                        }
                    }
                }
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not read " + METADATA, ex);
        }
        return settings;
    }

    /** Whether {@code name} is a setting, in any relaxed spelling, or an element of one ({@code [0]}, {@code .key}). */
    static boolean isSetting(String name, Set<String> settings) {
        String argument = relaxed(name);
        for (String setting : settings) {
            String key = relaxed(setting);
            if (argument.equals(key) || argument.startsWith(key + "[") || argument.startsWith(key + ".")) {
                return true;
            }
        }
        return false;
    }

    private static String unknown(String name, Set<String> settings) {
        String nearest = nearest(name, settings);
        return "--" + name + " sets nothing: there is no such setting"
                + ((nearest != null) ? "; did you mean --" + nearest + "?" : ".")
                + " The loom.sample settings are: " + String.join(", ", settings);
    }

    /** The setting closest to {@code name} in edit distance, if it is close enough to be a typo of it. */
    private static String nearest(String name, Set<String> settings) {
        String argument = relaxed(name);
        List<String> candidates = new ArrayList<>(settings);
        candidates.sort(Comparator.comparingInt((String setting) -> distance(argument, relaxed(setting))));
        String best = candidates.get(0);
        int allowed = Math.max(2, relaxed(best).length() / 8);
        return (distance(argument, relaxed(best)) <= allowed) ? best : null;
    }

    /** Spring Boot's relaxed form: case, dashes and underscores do not count. */
    private static String relaxed(String name) {
        return name.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
    }

    /** Levenshtein distance: insertions, deletions and substitutions, each counting one. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
