package org.coflow.master.identify;

/**
 * What CODA's identification knows of a flow (seed 002 §3.1): its start time, the hosts and ports
 * it connects, the framework its port signature points to, and the community of its hosts.
 * Per-packet statistics (mean and variance of write sizes and gaps) are left out: the paper's own
 * learned weights give them 0 (Table 1 of our seed notes), and its prototype does not collect them.
 *
 * @param id unique flow id
 * @param startSec start time in seconds (the time scale the metric's weights refer to)
 * @param src sending host
 * @param dst receiving host
 * @param dstPort destination port: for Spark the reducer executor's port, which with {@code dst}
 *     forms the flow's "aggregation" (every flow to one executor shares it)
 * @param hadoop whether the flow looks like a Hadoop shuffle (source port = the shuffle port, 13562
 *     by default); its ports carry no coflow information then
 * @param community the community of the flow's hosts ({@link Communities})
 */
public record FlowPoint(
    long id, double startSec, int src, int dst, int dstPort, boolean hadoop, int community) {}
