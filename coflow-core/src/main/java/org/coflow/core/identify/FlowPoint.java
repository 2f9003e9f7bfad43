package org.coflow.core.identify;

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
public final class FlowPoint {
  private final long id;
  private final double startSec;
  private final int src;
  private final int dst;
  private final int dstPort;
  private final boolean hadoop;
  private final int community;

  public FlowPoint(
      long id, double startSec, int src, int dst, int dstPort, boolean hadoop, int community) {
    this.id = id;
    this.startSec = startSec;
    this.src = src;
    this.dst = dst;
    this.dstPort = dstPort;
    this.hadoop = hadoop;
    this.community = community;
  }

  public long id() {
    return id;
  }

  public double startSec() {
    return startSec;
  }

  public int src() {
    return src;
  }

  public int dst() {
    return dst;
  }

  public int dstPort() {
    return dstPort;
  }

  public boolean hadoop() {
    return hadoop;
  }

  public int community() {
    return community;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof FlowPoint)) {
      return false;
    }
    FlowPoint x = (FlowPoint) o;
    return id == x.id
        && Double.compare(startSec, x.startSec) == 0
        && src == x.src
        && dst == x.dst
        && dstPort == x.dstPort
        && hadoop == x.hadoop
        && community == x.community;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(id, startSec, src, dst, dstPort, hadoop, community);
  }

  @Override
  public String toString() {
    return "FlowPoint[id="
        + id
        + ", startSec="
        + startSec
        + ", src="
        + src
        + ", dst="
        + dst
        + ", dstPort="
        + dstPort
        + ", hadoop="
        + hadoop
        + ", community="
        + community
        + "]";
  }
}
