package io.github.loombulkhead.autoconfigure.cluster;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.github.loombulkhead.autoconfigure.endpoint.BulkheadPaths;
import io.github.loombulkhead.redis.ClusterBulkhead;
import io.github.loombulkhead.redis.ClusterBulkheads;
import io.github.loombulkhead.redis.ClusterMode;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;

/**
 * {@code /actuator/bulkheadcluster}: the cluster view of every cluster bulkhead, as this process last saw it. The
 * shared limit is changed through {@code /actuator/bulkheads/<name>}, which applies it to every process.
 */
@Endpoint(id = "bulkheadcluster", defaultAccess = Access.READ_ONLY)
public class BulkheadClusterEndpoint {

    private final ClusterBulkheads cluster;

    public BulkheadClusterEndpoint(ClusterBulkheads cluster) {
        this.cluster = cluster;
    }

    @ReadOperation
    public ClusterDescriptor cluster() {
        Map<String, ClusterBulkheadDescriptor> bulkheads = new TreeMap<>();
        this.cluster.getAll().forEach((bulkhead) -> bulkheads.put(bulkhead.getName(), ClusterBulkheadDescriptor.of(bulkhead)));
        return new ClusterDescriptor(this.cluster.getProcessId(), this.cluster.getKeyPrefix(), bulkheads);
    }

    /**
     * One cluster bulkhead, or 404 if there is none of that name; addressed by its name written as is, slashes
     * included, as in {@code /actuator/bulkheads}.
     * @param nameSegments the name's path segments (see {@link BulkheadPaths})
     */
    @ReadOperation
    public @Nullable ClusterBulkheadDescriptor bulkhead(@Selector(match = Match.ALL_REMAINING) String... nameSegments) {
        return BulkheadPaths.find(nameSegments, this.cluster::find, this.cluster.getAll(), ClusterBulkhead::getName)
            .map(ClusterBulkheadDescriptor::of)
            .orElse(null);
    }

    /** This process and its cluster bulkheads. */
    public record ClusterDescriptor(String processId, String keyPrefix, Map<String, ClusterBulkheadDescriptor> bulkheads)
            implements OperationResponseBody {
    }

    /**
     * One cluster bulkhead: the shared limit, permits held cluster-wide and by this process, the local queue.
     */
    public record ClusterBulkheadDescriptor(int limit, int clusterInFlight, int heldPermits, int localActive,
            int localWaiting, int processes, ClusterMode mode, String fallback, String leaseDuration, String idleLinger,
            long renewals, long errors) implements OperationResponseBody {

        static ClusterBulkheadDescriptor of(ClusterBulkhead bulkhead) {
            return new ClusterBulkheadDescriptor(bulkhead.getLimit(), bulkhead.getClusterInFlight(),
                    bulkhead.getHeldPermits(), bulkhead.getBulkhead().getActiveCount(),
                    bulkhead.getBulkhead().getWaitingCount(), bulkhead.getProcessCount(), bulkhead.getMode(),
                    bulkhead.getConfig().getFallback().name().toLowerCase(Locale.ROOT),
                    bulkhead.getConfig().getLeaseDuration().toString(), bulkhead.getConfig().getIdleLinger().toString(),
                    bulkhead.getRenewalCount(),
                    bulkhead.getErrorCount());
        }
    }
}
