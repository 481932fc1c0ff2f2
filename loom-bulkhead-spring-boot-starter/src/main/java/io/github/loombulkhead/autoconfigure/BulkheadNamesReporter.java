package io.github.loombulkhead.autoconfigure;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.task.BoundedVirtualTaskExecutor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Warns when bulkhead names in configuration and in code do not match: at startup, an entry under {@code loom.bulkhead.instances} that no
 * {@code @Bulkhead}, HTTP group, per-host client or executor refers to; and, whenever a bulkhead is created, one
 * without an entry of its own while a similarly named entry exists (a name with dots written without brackets,
 * another case, an environment variable's form, a typo).
 */
class BulkheadNamesReporter implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(BulkheadNamesReporter.class);

    private static final ConfigurationPropertyName INSTANCES = ConfigurationPropertyName.of("loom.bulkhead.instances");

    /** {@code <scheme>://<host>:<port>}, the rest of a per-host bulkhead's name after the prefix. */
    private static final Pattern HOST = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://.+:[0-9]+");

    private final LoomBulkheadProperties properties;

    private final BulkheadRegistry registry;

    private final ConfigurableListableBeanFactory beanFactory;

    private final Environment environment;

    BulkheadNamesReporter(LoomBulkheadProperties properties, BulkheadRegistry registry,
            ConfigurableListableBeanFactory beanFactory, Environment environment) {
        this.properties = properties;
        this.registry = registry;
        this.beanFactory = beanFactory;
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Set<String> configured = configuredNames();
        Set<String> referenced = referencedNames();
        Set<String> merged = new HashSet<>();
        for (Set<String> spellings : mergedEntries()) {
            logger.warn(mergedWarning(spellings));
            if (spellings.stream().anyMatch(referenced::contains)) {
                merged.addAll(spellings);
            }
        }
        for (String name : configured) {
            if (!referenced.contains(name) && !isPerHost(name) && !merged.contains(name)) {
                logger.warn(unused(name, similar(name, referenced, true)));
            }
        }
        this.registry.forEachBulkhead((bulkhead) -> {
            if (!configured.contains(bulkhead.getName())) {
                List<String> similar = similar(bulkhead.getName(), configured, false);
                if (!similar.isEmpty()) {
                    logger.warn(withoutEntry(bulkhead.getName(), similar));
                }
            }
        });
    }

    private String unused(String name, List<String> similar) {
        return "Bulkhead '" + name + "' is configured (" + BulkheadConfigMapper.instanceKey(name) + ") but nothing "
                + "refers to it: no @Bulkhead, HTTP service group, per-host client, bounded executor bean or @Async "
                + "executor names it. " + (similar.isEmpty() ? "Check the name"
                        : "Similar names in use: " + similar + "; to configure '" + similar.get(0) + "', "
                                + howToConfigure(similar.get(0)))
                + ". Ignore this if application code asks the BulkheadRegistry for '" + name + "' by name.";
    }

    private static String mergedWarning(Set<String> spellings) {
        return "Entries " + spellings + " under loom.bulkhead.instances are one entry to Spring Boot's binding, which "
                + "compares names written without brackets ignoring case and dashes: each of these bulkheads gets the "
                + "settings written under all of them. To configure them apart, write the names in brackets ("
                + String.join(", ", spellings.stream().map((name) -> "loom.bulkhead.instances[" + name + "]").toList())
                + "); environment variables can only spell the lower-case form without dashes.";
    }

    private String withoutEntry(String name, List<String> similar) {
        return "Bulkhead '" + name + "' has no entry under loom.bulkhead.instances and runs with "
                + (isPerHost(name) ? "loom.bulkhead.http.per-host.template" : "loom.bulkhead.defaults")
                + ", but similarly named entries exist: "
                + similar.stream().map(BulkheadConfigMapper::instanceKey).toList()
                + ". Names are matched exactly: " + howToConfigure(name) + ".";
    }

    private static String howToConfigure(String name) {
        return "write loom.bulkhead.instances[" + name + "].max-concurrent-calls (brackets keep dots and capitals; "
                + "environment variables keep neither, so use lower-case names with dashes there)";
    }

    /**
     * The entries of {@code loom.bulkhead.instances}: those bound, and those the property names give although
     * nothing bound (an unbracketed {@code instances.my.service.max-concurrent-calls} names the entry {@code my}).
     */
    private Set<String> configuredNames() {
        Set<String> names = new LinkedHashSet<>(this.properties.getInstances().keySet());
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.filter(INSTANCES::isAncestorOf)
                    .stream()
                    .filter((name) -> name.getNumberOfElements() > INSTANCES.getNumberOfElements())
                    .forEach((name) -> names.add(name.getElement(INSTANCES.getNumberOfElements(), Form.ORIGINAL)));
            }
        }
        return names;
    }

    /**
     * Entries that Spring Boot binds as one although they are spelled differently: names written without brackets
     * that differ only in case and dashes ({@code Callee} and {@code callee}, {@code my-service} and the
     * {@code myservice} of an environment variable). Spring Boot creates an entry for each spelling and binds every
     * one of them from the properties of all.
     */
    private List<Set<String>> mergedEntries() {
        Map<String, Set<String>> spellings = new LinkedHashMap<>();
        int index = INSTANCES.getNumberOfElements();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.filter(INSTANCES::isAncestorOf)
                    .stream()
                    .filter((name) -> name.getNumberOfElements() > index)
                    .forEach((name) -> spellings
                        .computeIfAbsent(name.getElement(index, Form.UNIFORM), (key) -> new TreeSet<>())
                        .add(name.getElement(index, Form.ORIGINAL)));
            }
        }
        return spellings.values().stream().filter((names) -> names.size() > 1).toList();
    }

    /** Names of bulkheads that the application's annotations, configuration and executor beans refer to. */
    private Set<String> referencedNames() {
        Set<String> names = new LinkedHashSet<>();
        List<Class<?>> types = new ArrayList<>();
        for (String bean : this.beanFactory.getBeanDefinitionNames()) {
            Class<?> type = this.beanFactory.getType(bean, false);
            if (type != null) {
                types.add(ClassUtils.getUserClass(type));
            }
        }
        names.addAll(AnnotatedBulkheads.of(types));
        this.properties.getHttp().getGroups().forEach((group, settings) -> {
            if (settings.isEnabled()) {
                names.add((settings.getBulkhead() != null) ? settings.getBulkhead() : group);
            }
        });
        if (this.properties.getTaskExecution().isEnabled()) {
            names.add(this.properties.getTaskExecution().getBulkhead());
        }
        if (this.properties.getServer().isEnabled()) {
            names.add(this.properties.getServer().getBulkhead());
            this.properties.getServer().getRoutes().forEach((route) -> names.add(route.getBulkhead()));
        }
        this.beanFactory.getBeansOfType(BoundedVirtualExecutor.class, false, false)
            .values()
            .forEach((executor) -> names.add(executor.getBulkhead().getName()));
        this.beanFactory.getBeansOfType(BoundedVirtualTaskExecutor.class, false, false)
            .values()
            .forEach((executor) -> names.add(executor.getExecutor().getBulkhead().getName()));
        return names;
    }

    /** Whether {@code name} is a per-host bulkhead's, created at the first call to that host. */
    private boolean isPerHost(String name) {
        LoomBulkheadProperties.PerHost perHost = this.properties.getHttp().getPerHost();
        return perHost.isEnabled() && name.startsWith(perHost.getNamePrefix())
                && HOST.matcher(name.substring(perHost.getNamePrefix().length())).matches();
    }

    /**
     * The names among {@code candidates} that Spring Boot's binding or a typo could have derived from
     * {@code name} or {@code name} from them: equal but for case and characters other than letters and digits
     * ({@code my.service}, {@code my-service}, {@code MyService}, {@code MYSERVICE}), equal to the part before
     * the first dot, which is what an unbracketed {@code instances.my.service.*} binds as, or, with {@code typos},
     * a typo apart ({@code calee}, {@code reprots}: see {@link #isTypoOf}). Typos are looked for only from an entry
     * nothing refers to: bulkheads created at run time ({@code partner-a}, {@code partner-b}) are often that close
     * to each other by design.
     */
    private static List<String> similar(String name, Set<String> candidates, boolean typos) {
        List<String> similar = new ArrayList<>();
        for (String candidate : candidates) {
            if (!candidate.equals(name) && (normalized(candidate).equals(normalized(name))
                    || normalized(firstPart(name)).equals(normalized(candidate))
                    || normalized(firstPart(candidate)).equals(normalized(name))
                    || (typos && isTypoOf(normalized(candidate), normalized(name))))) {
                similar.add(candidate);
            }
        }
        return similar;
    }

    /**
     * Whether two names are a typo apart: one letter missing, added, replaced or two swapped in a name of 4 to 7
     * letters, up to two such slips from 8 letters on; names under 4 letters are too short to tell a typo from
     * another name ({@code db}, {@code dc}).
     */
    private static boolean isTypoOf(String a, String b) {
        int shorter = Math.min(a.length(), b.length());
        int allowed = (shorter < 4) ? 0 : (shorter < 8) ? 1 : 2;
        return allowed > 0 && Math.abs(a.length() - b.length()) <= allowed && PropertyKeys.edits(a, b) <= allowed;
    }

    private static String firstPart(String name) {
        int dot = name.indexOf('.');
        return (dot > 0) ? name.substring(0, dot) : name;
    }

    private static String normalized(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    }
}
