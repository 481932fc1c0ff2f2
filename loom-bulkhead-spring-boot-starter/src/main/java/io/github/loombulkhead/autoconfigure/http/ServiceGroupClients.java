package io.github.loombulkhead.autoconfigure.http;

import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.springframework.web.client.RestClient;

/**
 * The {@code RestClient.Builder}s of service groups whose request factory was set for their group, so that
 * {@link PerHostBulkheadRestClientCustomizer} does not replace it with one without the group's settings. Weak, so
 * builders can go.
 */
final class ServiceGroupClients {

    private final ReentrantLock lock = new ReentrantLock();

    /** Guarded by lock. */
    private final Set<RestClient.Builder> builders = Collections.newSetFromMap(new WeakHashMap<>());

    void add(RestClient.Builder builder) {
        this.lock.lock();
        try {
            this.builders.add(builder);
        }
        finally {
            this.lock.unlock();
        }
    }

    boolean contains(RestClient.Builder builder) {
        this.lock.lock();
        try {
            return this.builders.contains(builder);
        }
        finally {
            this.lock.unlock();
        }
    }
}
