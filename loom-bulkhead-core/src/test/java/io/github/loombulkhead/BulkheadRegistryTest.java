package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/** One bulkhead per name, created from the resolved config, with registry-wide listeners. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class BulkheadRegistryTest {

    private static final BulkheadConfig SMALL = BulkheadConfig.custom().maxConcurrentCalls(2).build();

    private static final BulkheadConfig DEFAULT = BulkheadConfig.custom().maxConcurrentCalls(20).build();

    @Test
    void sameNameGivesTheSameInstanceAndTheFirstConfigWins() {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        Bulkhead first = registry.bulkhead("callee", SMALL);
        assertThat(registry.bulkhead("callee")).isSameAs(first);
        assertThat(registry.bulkhead("callee", DEFAULT)).isSameAs(first);
        assertThat(first.getLimit()).isEqualTo(2);
        assertThat(registry.find("callee")).containsSame(first);
        assertThat(registry.find("other")).isEmpty();
        assertThat(registry.bulkhead("other").getConfig()).usingRecursiveComparison()
            .isEqualTo(BulkheadConfig.ofDefaults());
        assertThat(registry.getAllBulkheads()).extracting(Bulkhead::getName).containsExactlyInAnyOrder("callee", "other");
    }

    @Test
    void configsResolveByResolverThenNameThenDefault() {
        BulkheadConfig resolved = BulkheadConfig.custom().maxConcurrentCalls(7).build();
        BulkheadRegistry registry = BulkheadRegistry.builder()
            .defaultConfig(DEFAULT)
            .config("named", SMALL)
            .configResolver((name) -> name.startsWith("dyn-") ? resolved : null)
            .build();
        assertThat(registry.resolveConfig("named")).isSameAs(SMALL);
        assertThat(registry.resolveConfig("dyn-x")).isSameAs(resolved);
        assertThat(registry.resolveConfig("anything")).isSameAs(DEFAULT);
        assertThat(registry.bulkhead("named").getLimit()).isEqualTo(2);
        assertThat(registry.bulkhead("dyn-x").getLimit()).isEqualTo(7);
        assertThat(registry.bulkhead("anything").getLimit()).isEqualTo(20);
        assertThat(registry.find("unused")).as("resolving does not create").isEmpty();
    }

    @Test
    void registryListenersAndCallbacksReachCurrentAndFutureBulkheads() {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        Bulkhead before = registry.bulkhead("before", SMALL);
        RecordingListener listener = new RecordingListener();
        Queue<String> seen = new ConcurrentLinkedQueue<>();
        registry.addListener(listener);
        registry.forEachBulkhead((bulkhead) -> seen.add(bulkhead.getName()));
        Bulkhead after = registry.bulkhead("after", SMALL);
        registry.bulkhead("after");
        assertThat(seen).containsExactly("before", "after");
        before.tryAcquirePermit();
        after.tryAcquirePermit();
        assertThat(listener.events).extracting(RecordingListener.Event::bulkhead).containsExactly("before", "after");
    }

    @Test
    void aRemovedListenerHearsNoMoreFromExistingOrLaterBulkheads() {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        Bulkhead before = registry.bulkhead("before", SMALL);
        RecordingListener removed = new RecordingListener();
        RecordingListener kept = new RecordingListener();
        registry.addListener(removed);
        registry.addListener(kept);
        before.tryAcquirePermit();

        registry.removeListener(removed);
        before.tryAcquirePermit();
        Bulkhead after = registry.bulkhead("after", SMALL);
        after.tryAcquirePermit();

        assertThat(removed.events).extracting(RecordingListener.Event::bulkhead).containsExactly("before");
        assertThat(kept.events).extracting(RecordingListener.Event::bulkhead).containsExactly("before", "before", "after");
    }

    @Test
    void aClosedCallbackRegistrationHearsOfNoFurtherBulkheads() {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        registry.bulkhead("before", SMALL);
        Queue<String> closed = new ConcurrentLinkedQueue<>();
        Queue<String> open = new ConcurrentLinkedQueue<>();
        Consumer<Bulkhead> recordClosed = (bulkhead) -> closed.add(bulkhead.getName());
        BulkheadRegistry.Registration registration = registry.forEachBulkhead(recordClosed);
        // The same consumer registered twice is two registrations: closing one leaves the other.
        registry.forEachBulkhead(recordClosed);
        registry.forEachBulkhead((bulkhead) -> open.add(bulkhead.getName()));

        registration.close();
        registration.close();
        registry.bulkhead("after", SMALL);

        assertThat(closed).containsExactly("before", "before", "after");
        assertThat(open).containsExactly("before", "after");
    }

    @Test
    void executorsBuiltWithTheRegistryShareOneBulkheadPerName() throws Exception {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        BoundedVirtualExecutor first = BoundedVirtualExecutor.builder("shared").maxConcurrentCalls(3).registry(registry).build();
        // The second leaves the limit to the bulkhead that exists; a different one would fail its build().
        BoundedVirtualExecutor second = BoundedVirtualExecutor.builder("shared").registry(registry).build();
        assertThat(second.getBulkhead()).isSameAs(first.getBulkhead()).isSameAs(registry.bulkhead("shared"));
        assertThat(second.getBulkhead().getLimit()).isEqualTo(3);
        first.close();
        second.close();
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void concurrentGetOrCreateMakesOneInstanceAndAnnouncesItOnce(Submitters submitters) throws Exception {
        BulkheadRegistry registry = BulkheadRegistry.builder().defaultConfig(SMALL).build();
        Queue<Bulkhead> announced = new ConcurrentLinkedQueue<>();
        registry.forEachBulkhead(announced::add);
        Set<Bulkhead> seen = ConcurrentHashMap.newKeySet();
        submitters.runConcurrently(8, (thread) -> {
            for (int i = 0; i < 200; i++) {
                seen.add(registry.bulkhead("name-" + (i % 10)));
            }
        });
        assertThat(seen).hasSize(10);
        assertThat(announced).hasSize(10).containsExactlyInAnyOrderElementsOf(seen);
        assertThat(registry.getAllBulkheads()).containsExactlyInAnyOrderElementsOf(seen);
    }

    @Test
    void listenersAndCallbacksRegisteredDuringCreationReachEveryBulkheadExactlyOnce() throws Exception {
        int trials = 3_000;
        int bulkheads = 8;
        List<String> wrong = new ArrayList<>();
        for (int trial = 0; trial < trials; trial++) {
            BulkheadRegistry registry = BulkheadRegistry.builder().defaultConfig(SMALL).build();
            Map<String, LongAdder> attached = new ConcurrentHashMap<>();
            Map<String, LongAdder> announced = new ConcurrentHashMap<>();
            BulkheadListener counting = new BulkheadListener() {

                @Override
                public void onPermitted(Bulkhead bulkhead, long waitNanos) {
                    attached.computeIfAbsent(bulkhead.getName(), (name) -> new LongAdder()).increment();
                }
            };
            AtomicInteger created = new AtomicInteger();
            int registerAfter = ThreadLocalRandom.current().nextInt(bulkheads);
            Thread creator = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < bulkheads; i++) {
                    registry.bulkhead("b" + i);
                    created.incrementAndGet();
                }
            });
            Thread registrar = Thread.ofPlatform().start(() -> {
                while (created.get() < registerAfter) {
                    Thread.onSpinWait();
                }
                registry.addListener(counting);
                registry.forEachBulkhead((bulkhead) -> announced
                    .computeIfAbsent(bulkhead.getName(), (name) -> new LongAdder())
                    .increment());
            });
            assertThat(creator.join(Submitters.JOIN_TIMEOUT)).isTrue();
            assertThat(registrar.join(Submitters.JOIN_TIMEOUT)).isTrue();
            for (Bulkhead bulkhead : registry.getAllBulkheads()) {
                assertThat(bulkhead.tryAcquirePermit()).isTrue();
                long listeners = count(attached, bulkhead.getName());
                long callbacks = count(announced, bulkhead.getName());
                if (listeners != 1 || callbacks != 1) {
                    wrong.add("trial " + trial + ", " + bulkhead.getName() + ": listener attached " + listeners
                            + " times, callback called " + callbacks + " times");
                }
            }
        }
        assertThat(wrong).as("bulkheads that did not get the listener and the callback exactly once").isEmpty();
    }

    private static long count(Map<String, LongAdder> counts, String name) {
        LongAdder count = counts.get(name);
        return (count != null) ? count.sum() : 0;
    }

    @Test
    void runtimeChangesShowInTheSharedInstance() {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        registry.bulkhead("tuned", SMALL).changeLimit(5);
        registry.bulkhead("tuned").changeMaxWaitDuration(Duration.ofSeconds(2));
        assertThat(registry.bulkhead("tuned").getConfig().getMaxConcurrentCalls()).isEqualTo(5);
        assertThat(registry.bulkhead("tuned").getConfig().getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(2));
    }
}
