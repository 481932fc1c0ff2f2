package io.github.loombulkhead.http;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** Fires many calls at once from virtual threads released by one latch, and collects the results. */
public final class Calls {

    private Calls() {
    }

    /** Runs {@code call(i)} for i in [0, count) concurrently and returns the results in order. */
    public static <T> List<T> concurrently(int count, IntFunction<T> call) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<T>> futures = new ArrayList<>(count);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < count; i++) {
                int index = i;
                Callable<T> task = () -> {
                    start.await();
                    return call.apply(index);
                };
                futures.add(threads.submit(task));
            }
            start.countDown();
            List<T> results = new ArrayList<>(count);
            for (Future<T> future : futures) {
                results.add(future.get(60, TimeUnit.SECONDS));
            }
            return results;
        }
    }
}
