package io.github.loombulkhead.redis;

import java.util.List;

/**
 * What one sync with Redis returned.
 * @param held leases this process holds
 * @param clusterHeld leases held by all processes: the permits in use cluster-wide
 * @param limit the cluster-wide limit
 * @param othersWaiting other processes waiting for permits
 * @param processes processes alive (renewing)
 * @param fairShare the limit divided by the processes that hold or want permits, rounded down (0 when there are more
 *        of them than permits): while others wait, a process keeps no more
 * @param remainder the rest of that division: permits above the fair shares, each held by the waiting processes in
 *        turn, each for one turn of its calls
 */
record LeaseState(int held, int clusterHeld, int limit, int othersWaiting, int processes, int fairShare, int remainder) {

    static LeaseState of(List<?> reply) {
        if (reply == null || reply.size() != 7) {
            throw new IllegalStateException("unexpected reply of the lease script: " + reply);
        }
        return new LeaseState(number(reply, 0), number(reply, 1), number(reply, 2), number(reply, 3),
                number(reply, 4), number(reply, 5), number(reply, 6));
    }

    private static int number(List<?> reply, int index) {
        return ((Number) reply.get(index)).intValue();
    }
}
