package org.coflow.master.identify;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.coflow.api.model.Flow;
import org.coflow.master.policy.CoflowExtension;

/**
 * The master's CODA identifier: {@link CodaIdentifier} over the flows agents report without a
 * coflow id. The attributes it reads (both optional):
 *
 * <ul>
 *   <li>{@value #DST_PORT}: the destination port; with the destination host it is a Spark flow's
 *       aggregation (every flow into one executor shares it);
 *   <li>{@value #SRC_PORT}: the source port; a flow from the Hadoop shuffle port is a Hadoop flow
 *       (its ports then carry no coflow information).
 * </ul>
 *
 * A flow's start time is the reporting agent's clock ({@code start_time_ms}): like the paper we
 * assume the hosts' clocks agree to well under the radius ε (NTP does). A flow reported without one
 * (0) starts at the round that identifies it. Identified coflows are named {@code coda:<cluster>}.
 */
public final class CodaCoflowIdentifier implements CoflowIdentifier {
  public static final String SRC_PORT = "src_port";
  public static final String DST_PORT = "dst_port";

  private final CodaIdentifier coda;
  private final int hadoopPort;
  private final Map<String, Integer> hosts = new HashMap<>();

  /**
   * @param hadoopPort the shuffle port Hadoop flows come from (13562 by default)
   */
  public CodaCoflowIdentifier(CodaMetric metric, double eps, double tau, int hadoopPort) {
    this.coda = new CodaIdentifier(metric, eps, tau);
    this.hadoopPort = hadoopPort;
  }

  @Override
  public List<String> identify(List<Arrival> arrivals, long roundMillis) {
    for (Arrival a : arrivals) {
      // A flow reported without a start time starts when the master first hears of it.
      long start = a.startMillis() > 0 ? a.startMillis() : roundMillis;
      coda.add(
          a.handle(),
          start / 1000.0,
          host(a.srcHost()),
          host(a.dstHost()),
          port(a, DST_PORT),
          port(a, SRC_PORT) == hadoopPort);
    }
    coda.round();
    List<String> ids = new ArrayList<>(arrivals.size());
    for (Arrival a : arrivals) {
      ids.add("coda:" + coda.clusterOf(a.handle()));
    }
    return ids;
  }

  @Override
  public void departed(long handle) {
    coda.remove(handle);
  }

  @Override
  public CoflowExtension extension(ToLongFunction<Flow> handleOf) {
    return (state, d) -> coda.extend(state, handleOf, d);
  }

  /** Flows held (for the dashboard and tests). */
  public int flows() {
    return coda.flows();
  }

  private int host(String id) {
    return hosts.computeIfAbsent(id, k -> hosts.size());
  }

  /** The attribute as a port, or -1 when absent or not a port number (it then matches nothing). */
  private static int port(Arrival a, String key) {
    String v = a.attributes().get(key);
    if (v == null) {
      return -1;
    }
    try {
      int p = Integer.parseInt(v.trim());
      return p >= 0 && p <= 65535 ? p : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
