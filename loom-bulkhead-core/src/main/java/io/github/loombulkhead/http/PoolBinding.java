package io.github.loombulkhead.http;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadListener;
import io.github.loombulkhead.BulkheadRegistry;

/**
 * The listener that keeps one pool sized to its bulkheads, and where it is registered. Closed with the pool's
 * client, it leaves every bulkhead and registry it joined, so building and closing clients leaves nothing behind.
 */
final class PoolBinding implements Closeable {

    private final BulkheadListener listener;

    private final ReentrantLock lock = new ReentrantLock();

    /** Guarded by lock. */
    private final List<Bulkhead> bound = new ArrayList<>();

    /** Guarded by lock. */
    private final List<BulkheadRegistry.Registration> registrations = new ArrayList<>();

    /** Guarded by lock. */
    private boolean closed;

    PoolBinding(BulkheadListener listener) {
        this.listener = listener;
    }

    /** Keeps the pool of {@code sizer} sized to one bulkhead. */
    static PoolBinding of(PoolSizer sizer, Bulkhead bulkhead) {
        PoolBinding binding = new PoolBinding(sizer);
        binding.bind(bulkhead);
        // A limit raised since the factory's builder was made, or before the listener was added, counts too.
        sizer.grow(PoolSizer.poolLimit(bulkhead));
        return binding;
    }

    /** Keeps the pool of {@code sizer} sized to the sum of {@code bulkheads}' limits. */
    static PoolBinding of(PoolSizer sizer, Set<Bulkhead> bulkheads) {
        SummedPoolSizer summed = new SummedPoolSizer(sizer, bulkheads);
        PoolBinding binding = new PoolBinding(summed);
        bulkheads.forEach(binding::bind);
        // Limits raised since the factory's builder was made, or before the listener was added, count too.
        bulkheads.forEach((bulkhead) -> summed.onLimitChanged(bulkhead, 0, PoolSizer.poolLimit(bulkhead)));
        return binding;
    }

    /** Keeps the pool of {@code sizer} sized to every bulkhead of {@code registry} whose name has the prefix. */
    static PoolBinding ofHosts(PoolSizer sizer, BulkheadRegistry registry, String namePrefix) {
        PoolBinding binding = new PoolBinding(sizer);
        binding.closeWith(registry.forEachBulkhead((bulkhead) -> {
            if (bulkhead.getName().startsWith(namePrefix) && binding.bind(bulkhead)
                    && !sizer.grow(PoolSizer.poolLimit(bulkhead))) {
                // The pool was dropped without being closed.
                binding.close();
            }
        }));
        return binding;
    }

    /** Adds the listener to {@code bulkhead}; {@code false}, adding nothing, once closed. */
    boolean bind(Bulkhead bulkhead) {
        this.lock.lock();
        try {
            if (this.closed) {
                return false;
            }
            bulkhead.addListener(this.listener);
            this.bound.add(bulkhead);
            return true;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Closes {@code registration} with this binding (at once if already closed). */
    void closeWith(BulkheadRegistry.Registration registration) {
        this.lock.lock();
        try {
            if (!this.closed) {
                this.registrations.add(registration);
                return;
            }
        }
        finally {
            this.lock.unlock();
        }
        registration.close();
    }

    BulkheadListener listener() {
        return this.listener;
    }

    /** How many bulkheads the listener is registered with now. */
    int boundCount() {
        this.lock.lock();
        try {
            return this.bound.size();
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Removes the listener from every bulkhead and closes the registrations; closing again does nothing. */
    @Override
    public void close() {
        List<BulkheadRegistry.Registration> registered;
        this.lock.lock();
        try {
            if (this.closed) {
                return;
            }
            this.closed = true;
            this.bound.forEach((bulkhead) -> bulkhead.removeListener(this.listener));
            this.bound.clear();
            registered = List.copyOf(this.registrations);
            this.registrations.clear();
        }
        finally {
            this.lock.unlock();
        }
        registered.forEach(BulkheadRegistry.Registration::close);
    }
}
