package io.github.loombulkhead.autoconfigure;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.core.ResolvableType;

/**
 * The keys a {@code @ConfigurationProperties} class binds under its prefix, with map keys left free, and the
 * valid key nearest to one that bound nothing. Names compare in Boot's relaxed form (case and dashes ignored);
 * a typo is near when each misspelt part is at most one edit in four characters away (at least one, at most
 * three; a swap of two neighbours is one edit).
 */
final class PropertyKeys {

    /** The segment of a list's index. */
    private static final String INDEX = "index";

    private final ConfigurationPropertyName prefix;

    private final Class<?> type;

    private final List<List<Segment>> keys = new ArrayList<>();

    PropertyKeys(ConfigurationPropertyName prefix, Class<?> type) {
        this.prefix = prefix;
        this.type = type;
        collect(type, new ArrayList<>());
    }

    /**
     * The valid key nearest to {@code unknown}, with the user's own map keys (in brackets when they need them),
     * or {@code null} when no key is near.
     */
    String nearest(ConfigurationPropertyName unknown) {
        List<String> elements = elementsBelowPrefix(unknown);
        if (elements == null) {
            return null;
        }
        Match best = null;
        for (List<Segment> key : this.keys) {
            Match match = match(key, 0, elements, 0);
            if (match != null && (best == null || match.edits() < best.edits())
                    && !ConfigurationPropertyName.of(this.prefix + match.text()).equals(unknown)) {
                best = match;
            }
        }
        return (best != null) ? this.prefix + best.text() : null;
    }

    /** Whether {@code name} is a valid key as written (map keys in place). */
    boolean isKey(ConfigurationPropertyName name) {
        List<String> elements = elementsBelowPrefix(name);
        if (elements == null) {
            return false;
        }
        for (List<Segment> key : this.keys) {
            Match match = match(key, 0, elements, 0);
            if (match != null && match.edits() == 0
                    && ConfigurationPropertyName.of(this.prefix + match.text()).equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** The valid keys that end like {@code unknown}, with a placeholder for each map key. */
    List<String> endingLike(ConfigurationPropertyName unknown) {
        String last = unknown.getLastElement(Form.UNIFORM);
        List<String> endings = new ArrayList<>();
        for (List<Segment> key : this.keys) {
            Segment end = key.get(key.size() - 1);
            if (!end.isMapKey() && uniform(end.name()).equals(last)) {
                endings.add(this.prefix + render(key, List.of()));
            }
        }
        return endings;
    }

    /**
     * The deepest valid key that {@code unknown} starts with, and what may follow it there (a {@code .*} marks
     * a group of keys), e.g. {@code loom.bulkhead.instances.callee} and its four settings.
     */
    Siblings siblings(ConfigurationPropertyName unknown) {
        List<String> elements = elementsBelowPrefix(unknown);
        if (elements == null) {
            return null;
        }
        int deepest = -1;
        String parent = null;
        Set<String> next = new LinkedHashSet<>();
        for (List<Segment> key : this.keys) {
            int matched = 0;
            while (matched < elements.size() - 1 && matched < key.size() - 1
                    && key.get(matched).accepts(elements.get(matched))) {
                matched++;
            }
            if (matched > deepest) {
                deepest = matched;
                parent = this.prefix + render(key.subList(0, matched), elements);
                next.clear();
            }
            if (matched == deepest) {
                next.add(render(key.subList(matched, matched + 1), List.of()).substring(1)
                        + ((matched + 1 < key.size()) ? ".*" : ""));
            }
        }
        return new Siblings(parent, List.copyOf(next));
    }

    private List<String> elementsBelowPrefix(ConfigurationPropertyName name) {
        if (!this.prefix.isAncestorOf(name)) {
            return null;
        }
        List<String> elements = new ArrayList<>();
        for (int i = this.prefix.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
            elements.add(name.getElement(i, Form.ORIGINAL));
        }
        return elements;
    }

    private void collect(Class<?> group, List<Segment> path) {
        if (isNested(group.getSuperclass())) {
            // Inherited keys first, e.g. an instance's settings before its cluster group.
            collect(group.getSuperclass(), path);
        }
        for (Field field : group.getDeclaredFields()) {
            PropertyDescriptor property = BeanUtils.getPropertyDescriptor(group, field.getName());
            if (Modifier.isStatic(field.getModifiers()) || property == null || property.getReadMethod() == null) {
                continue;
            }
            List<Segment> key = new ArrayList<>(path);
            key.add(new Segment(DataObjectPropertyName.toDashedForm(field.getName()), false));
            ResolvableType value = ResolvableType.forMethodReturnType(property.getReadMethod());
            if (Map.class.isAssignableFrom(value.toClass())) {
                key.add(new Segment(singular(key.get(key.size() - 1).name()), true));
                value = value.asMap().getGeneric(1);
            }
            else if (List.class.isAssignableFrom(value.toClass())
                    && value.asCollection().getGeneric(0).toClass().getEnclosingClass() == group) {
                // A list of this group's own entries, e.g. the server's routes: an index, then the entry's keys.
                key.add(new Segment(INDEX, true));
                value = value.asCollection().getGeneric(0);
            }
            if (isNested(value.toClass()) || field.isAnnotationPresent(NestedConfigurationProperty.class)
                    || segmentIsIndex(key)) {
                collect(value.toClass(), key);
            }
            else {
                this.keys.add(List.copyOf(key));
            }
        }
    }

    private static boolean segmentIsIndex(List<Segment> key) {
        return key.get(key.size() - 1).name().equals(INDEX);
    }

    /** Whether {@code candidate} is a group of keys: a nested class of the properties class. */
    private boolean isNested(Class<?> candidate) {
        return candidate.getName().startsWith(this.type.getName() + "$") && !candidate.isEnum();
    }

    /** Matches {@code elements[e..]} against {@code key[k..]}: a map key takes one element or more, as written. */
    private static Match match(List<Segment> key, int k, List<String> elements, int e) {
        if (k == key.size()) {
            return (e == elements.size()) ? new Match(0, "") : null;
        }
        Segment segment = key.get(k);
        if (segment.name().equals(INDEX)) {
            if (e == elements.size() || !elements.get(e).matches("[0-9]+")) {
                return null;
            }
            Match rest = match(key, k + 1, elements, e + 1);
            return (rest != null) ? new Match(rest.edits(), "[" + elements.get(e) + "]" + rest.text()) : null;
        }
        if (segment.isMapKey()) {
            Match best = null;
            for (int end = e + 1; end <= elements.size(); end++) {
                Match rest = match(key, k + 1, elements, end);
                if (rest != null && (best == null || rest.edits() < best.edits())) {
                    best = new Match(rest.edits(), keyText(elements.subList(e, end)) + rest.text());
                }
            }
            return best;
        }
        if (e == elements.size()) {
            return null;
        }
        String written = uniform(elements.get(e));
        String name = uniform(segment.name());
        int edits = edits(written, name);
        if (edits > Math.max(1, Math.min(3, written.length() / 4)) || swapsMinAndMax(written, name)) {
            return null;
        }
        Match rest = match(key, k + 1, elements, e + 1);
        return (rest != null) ? new Match(edits + rest.edits(), "." + segment.name() + rest.text()) : null;
    }

    /**
     * A map key or list index as it must be written: {@code .callee}, or {@code [my.service]} and {@code [0]} when it
     * needs brackets.
     */
    private static String keyText(List<String> elements) {
        String key = String.join(".", elements);
        return (key.matches("[a-z0-9][a-z0-9-]*") && !key.matches("[0-9]+")) ? "." + key : "[" + key + "]";
    }

    /** A key's text: property names as declared, map keys as written in {@code elements} or as placeholders. */
    private static String render(List<Segment> key, List<String> elements) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < key.size(); i++) {
            Segment segment = key.get(i);
            if (!segment.isMapKey()) {
                text.append('.').append(segment.name());
            }
            else {
                String placeholder = segment.name().equals(INDEX) ? "[<index>]" : ".<" + segment.name() + ">";
                text.append((i < elements.size()) ? keyText(elements.subList(i, i + 1)) : placeholder);
            }
        }
        return text.toString();
    }

    /** Whether {@code written} is {@code name} with min and max swapped: the opposite key, not a typo of it. */
    private static boolean swapsMinAndMax(String written, String name) {
        return !written.equals(name) && (written.replace("max", "min").equals(name)
                || written.replace("min", "max").equals(name));
    }

    private static String singular(String name) {
        return name.endsWith("s") ? name.substring(0, name.length() - 1) : name;
    }

    /** A name as Spring Boot compares an unbracketed one: letters and digits only, lower case. */
    static String uniform(String name) {
        return name.replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
    }

    /** Edit distance with insertions, deletions, substitutions and swaps of neighbours, each counting one. */
    static int edits(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            for (int j = 0; j <= b.length(); j++) {
                if (i == 0 || j == 0) {
                    d[i][j] = i + j;
                    continue;
                }
                int cost = (a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    /** One part of a key: a property name, or the key of a map entry (named after the map, e.g. instance). */
    private record Segment(String name, boolean isMapKey) {

        boolean accepts(String element) {
            return this.isMapKey || uniform(this.name).equals(uniform(element));
        }
    }

    private record Match(int edits, String text) {
    }

    /** A valid key and the names that may follow it. */
    record Siblings(String parent, List<String> names) {
    }
}
