package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Loss based ({@code aimd}): grows while calls succeed with the whole limit in use, shrinks on drops.
 * Draft; see docs/adaptive-limits.md.
 */
final class AimdLimit implements LimitAlgorithm {

    private final AdaptiveLimitConfig config;

    private final ReentrantLock lock = new ReentrantLock();

    private final AtomicLong pendingDropEnd = new AtomicLong(Long.MIN_VALUE);

    private volatile long lastDecreaseNanos = Long.MIN_VALUE;

    private volatile int published;

    // Guarded by lock.
    private double limit;

    private boolean startup = true;

    AimdLimit(AdaptiveLimitConfig config) {
        this.config = config;
        this.limit = config.getInitialLimit();
        this.published = config.getInitialLimit();
    }

    @Override
    public String getName() {
        return AdaptiveLimitConfig.Algorithm.AIMD.getName();
    }

    @Override
    public int getLimit() {
        return this.published;
    }

    @Override
    public int onSample(long startNanos, long rttNanos, int inflight, Outcome outcome) {
        if (outcome == Outcome.IGNORED || startNanos < this.lastDecreaseNanos) {
            return this.published;
        }
        if (outcome == Outcome.DROPPED) {
            this.pendingDropEnd.accumulateAndGet(startNanos + Math.max(1, rttNanos), Math::max);
            drainDrops();
        }
        else if (inflight >= this.published && this.lock.tryLock()) {
            try {
                if (inflight >= this.published && this.pendingDropEnd.get() <= this.lastDecreaseNanos) {
                    double grown = this.startup ? this.limit * 2 : this.limit + this.config.getAdditiveIncrease();
                    this.limit = Math.min(this.config.getMaxLimit(), grown);
                    publish();
                }
            }
            finally {
                this.lock.unlock();
            }
            drainDrops();
        }
        return this.published;
    }

    private void drainDrops() {
        while (this.pendingDropEnd.get() > this.lastDecreaseNanos && this.lock.tryLock()) {
            try {
                long dropEnd = this.pendingDropEnd.get();
                if (dropEnd > this.lastDecreaseNanos) {
                    this.limit = Math.max(this.config.getMinLimit(), this.limit * this.config.getBackoffRatio());
                    this.lastDecreaseNanos = dropEnd;
                    this.startup = false;
                    publish();
                }
            }
            finally {
                this.lock.unlock();
            }
        }
    }

    private void publish() {
        this.published = (int) Math.max(this.config.getMinLimit(), Math.min(this.config.getMaxLimit(), this.limit));
    }

    @Override
    public String toString() {
        return "AimdLimit[limit=" + this.published + "]";
    }
}
