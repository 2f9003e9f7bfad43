package org.coflow.sim.identify;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceCoflow;

/**
 * Labelled flow records made from the Facebook coflow trace with CODA's start-time models (seed 002
 * §6.1, §6.3): each coflow's mapper × reducer flows, each with a start time, hosts (the trace's
 * ports), ports as the framework uses them, a lifetime, and its true coflow.
 *
 * <ul>
 *   <li>Start times, after the coflow's arrival: Spark uniform within 100 ms; Hadoop uniform within
 *       1000 ms plus an exponential delay of mean 100 ms. <em>Stretched</em>: uniform within 5000
 *       ms, plus for Hadoop an exponential delay of mean 1000 ms. <em>Batch</em> (interval B):
 *       coflows arriving within one B-second window all arrive within 100 to 300 ms of its start.
 *   <li>Ports: Spark flows go to the reducer executor's port (one per coflow and reducer host, in
 *       the ephemeral range) from an ephemeral port; Hadoop flows come from the shuffle port 13562
 *       and go to an ephemeral port. <em>Mixed</em>: each coflow is Spark or Hadoop with equal
 *       odds.
 *   <li>Lifetime: the flow's bytes at 1 Gbit/s, at least 10 ms (when it leaves the identifier).
 * </ul>
 */
public final class IdentifyWorkload {
  public enum Framework {
    SPARK,
    HADOOP,
    MIXED
  }

  public enum Arrivals {
    NORMAL,
    BATCH,
    STRETCHED
  }

  /** One flow: its attributes, its size and its true coflow. */
  public record Flow(
      long id,
      double startSec,
      double endSec,
      int src,
      int dst,
      int srcPort,
      int dstPort,
      boolean hadoop,
      String coflow,
      double bytes) {}

  private IdentifyWorkload() {}

  /**
   * The first {@code maxFlows} flows (by start time) of the trace under the given models.
   *
   * @param batchSeconds the batch interval for {@link Arrivals#BATCH}
   */
  public static List<Flow> generate(
      Trace trace,
      Framework framework,
      Arrivals arrivals,
      double batchSeconds,
      int maxFlows,
      long seed) {
    Random r = new Random(seed);
    List<Flow> flows = new ArrayList<>();
    long id = 0;
    for (TraceCoflow c : trace.coflows()) {
      boolean hadoop =
          framework == Framework.HADOOP || framework == Framework.MIXED && r.nextBoolean();
      double arrival = c.arrivalMs() / 1000.0;
      if (arrivals == Arrivals.BATCH) {
        double batch = Math.floor(arrival / batchSeconds) * batchSeconds;
        arrival = batch + 0.1 + 0.2 * r.nextDouble();
      }
      int[] executorPort = new int[c.reducers().length];
      for (int j = 0; j < executorPort.length; j++) {
        executorPort[j] = 32768 + r.nextInt(28000);
      }
      for (int j = 0; j < c.reducers().length; j++) {
        double bytes = c.flowBytes(j);
        for (int m : c.mappers()) {
          double delay;
          if (arrivals == Arrivals.STRETCHED) {
            delay = 5.0 * r.nextDouble() + (hadoop ? exp(r, 1.0) : 0);
          } else {
            delay = hadoop ? r.nextDouble() + exp(r, 0.1) : 0.1 * r.nextDouble();
          }
          double start = arrival + delay;
          double life = Math.max(0.01, bytes * 8 / 1e9);
          int srcPort = hadoop ? 13562 : 32768 + r.nextInt(28000);
          int dstPort = hadoop ? 32768 + r.nextInt(28000) : executorPort[j];
          flows.add(
              new Flow(
                  id++,
                  start,
                  start + life,
                  m,
                  c.reducers()[j],
                  srcPort,
                  dstPort,
                  hadoop,
                  Integer.toString(c.id()),
                  bytes));
        }
      }
    }
    flows.sort(Comparator.comparingDouble(Flow::startSec).thenComparingLong(Flow::id));
    return flows.size() > maxFlows ? new ArrayList<>(flows.subList(0, maxFlows)) : flows;
  }

  private static double exp(Random r, double mean) {
    return -mean * Math.log(1 - r.nextDouble());
  }
}
