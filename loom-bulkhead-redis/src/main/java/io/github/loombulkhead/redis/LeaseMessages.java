package io.github.loombulkhead.redis;

import java.util.function.Consumer;

/** The pub/sub messages that wake cluster bulkheads; a lost one costs a poll, never a permit. */
interface LeaseMessages extends AutoCloseable {

    /** Calls {@code onMessage} with every message published on {@code channel} from now on (once subscribed). */
    void subscribe(String channel, Consumer<String> onMessage);

    @Override
    void close();
}
