package org.coflow.core.identify;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.ToLongFunction;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.CoflowExtension;

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
 *
 * <p><b>A departed flow stays in the clustering while a flow near it may still be reported.</b> The
 * master hears of a start late (an agent reports a flow once it has sent its first 100 KB, at its
 * next report) and of an end late too (an agent ends a flow after an idle gap), so the order in
 * which starts and ends reach it is not the order they happened in. A shuffle's straggler that
 * started while its siblings ran can be reported after they all ended; had they left the clustering
 * at once, it would find nothing near it and make a coflow of its own (a CI run of {@code
 * CodaAgentSparkTest} split one shuffle so). A departed flow is therefore dropped from the
 * clustering only once the round's time is past its start by ε's time reach ({@link
 * CodaMetric#timeReach}) plus the longest report delay allowed ({@code reportDelayMillis}): a flow
 * reported after that started beyond ε's reach of it. The round's time is the master's clock, not
 * the newest start reported: other flows reported early must not push out the siblings of one
 * reported late. A straggler so joined gets its siblings' coflow id; if they had all finished, the
 * master opens that coflow anew (its name, not its bytes sent). The simulator, which sees every
 * start and end when it happens, drops flows at once.
 */
public final class CodaCoflowIdentifier implements CoflowIdentifier {
  public static final String SRC_PORT = "src_port";
  public static final String DST_PORT = "dst_port";

  private final CodaIdentifier coda;
  private final int hadoopPort;
  private final Map<String, Integer> hosts = new HashMap<>();

  /**
   * How long past a departed flow's start, on the master's clock, a flow near it may be reported
   * (s).
   */
  private final double hold;

  /** Start (s) of every flow held that has not departed, by handle. */
  private final Map<Long, Double> startOf = new HashMap<>();

  /** Departed flows still held, earliest start first. */
  private final PriorityQueue<Departed> departed =
      new PriorityQueue<>(Comparator.comparingDouble(Departed::startSec));

  private static final class Departed {
    private final long handle;

    private final double startSec;

    Departed(long handle, double startSec) {
      this.handle = handle;
      this.startSec = startSec;
    }

    long handle() {
      return handle;
    }

    double startSec() {
      return startSec;
    }
  }

  /**
   * @param hadoopPort the shuffle port Hadoop flows come from (13562 by default)
   * @param reportDelayMillis how late a flow's start may reach the master
   */
  public CodaCoflowIdentifier(
      CodaMetric metric, double eps, double tau, int hadoopPort, long reportDelayMillis) {
    this.coda = new CodaIdentifier(metric, eps, tau);
    this.hadoopPort = hadoopPort;
    this.hold = metric.timeReach(eps) + reportDelayMillis / 1000.0;
  }

  @Override
  public List<String> identify(List<Arrival> arrivals, long roundMillis) {
    double now = roundMillis / 1000.0;
    while (!departed.isEmpty() && now - departed.peek().startSec() > hold) {
      coda.remove(departed.poll().handle());
    }
    for (Arrival a : arrivals) {
      // A flow reported without a start time starts when the master first hears of it.
      long start = a.startMillis() > 0 ? a.startMillis() : roundMillis;
      double startSec = start / 1000.0;
      coda.add(
          a.handle(),
          startSec,
          host(a.srcHost()),
          host(a.dstHost()),
          port(a, DST_PORT),
          port(a, SRC_PORT) == hadoopPort);
      startOf.put(a.handle(), startSec);
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
    Double start = startOf.remove(handle);
    if (start != null) {
      departed.add(new Departed(handle, start));
    }
  }

  @Override
  public CoflowExtension extension(ToLongFunction<Flow> handleOf) {
    return (state, d) -> coda.extend(state, handleOf, d);
  }

  /** Flows held that have not departed (for the dashboard and tests). */
  public int flows() {
    return coda.flows() - departed.size();
  }

  /** Departed flows still held for the flows that may start near them. */
  public int departedHeld() {
    return departed.size();
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
