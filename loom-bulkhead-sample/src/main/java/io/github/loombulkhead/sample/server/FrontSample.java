package io.github.loombulkhead.sample.server;

/**
 * One sample of a front server.
 *
 * @param epochMs when it was taken
 * @param liveThreads live platform threads of the front JVM
 * @param heapUsedBytes heap in use
 * @param calleeInFlight calls to the callee in progress
 * @param inboundActive requests holding a permit of the inbound bulkhead
 * @param inboundWaiting requests waiting for one, without a thread
 * @param inboundRejected requests the inbound bulkhead rejected since the front server started (503 answers)
 * @param frontCpu CPU the front JVM used since the last sample, as a share of all cores (0 to 1)
 * @param machineCpu CPU the whole machine used (ab, callee, other processes included), as a share of all cores
 */
public record FrontSample(long epochMs, int liveThreads, long heapUsedBytes, int calleeInFlight, int inboundActive,
        int inboundWaiting, long inboundRejected, double frontCpu, double machineCpu) {

    static final int FIELDS = 9;

    String toCsv() {
        return this.epochMs + "," + this.liveThreads + "," + this.heapUsedBytes + "," + this.calleeInFlight + ","
                + this.inboundActive + "," + this.inboundWaiting + "," + this.inboundRejected + "," + this.frontCpu
                + "," + this.machineCpu;
    }

    static FrontSample fromCsv(String line) {
        String[] f = line.split(",");
        return new FrontSample(Long.parseLong(f[0]), Integer.parseInt(f[1]), Long.parseLong(f[2]),
                Integer.parseInt(f[3]), Integer.parseInt(f[4]), Integer.parseInt(f[5]), Long.parseLong(f[6]),
                Double.parseDouble(f[7]), Double.parseDouble(f[8]));
    }
}
