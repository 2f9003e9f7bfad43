package org.coflow.testbed;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceCoflow;

/**
 * What a testbed run replays: coflows, each with its arrival on the run's clock, its map outputs'
 * hosts and its reducers. A trace's ports land on hosts round-robin (port {@code p} on host {@code
 * p mod hosts}); the mappers of a coflow on one host form one map output (its reducers fetch them
 * in one go, as Hadoop's fetcher takes a host's map outputs over one connection), and every reducer
 * stays a reducer of its own.
 *
 * @param source where it came from, for reports
 */
public record Workload(String source, int hosts, List<Coflow> coflows) {

  /**
   * @param id the coflow's id in its source (the trace's)
   * @param arrivalMs when it arrives, from the run's start
   * @param mapperHosts the hosts with map outputs of it
   * @param mappersOn per host in {@code mapperHosts}, how many of its mappers run there
   * @param reducers its reducers, in order (a reducer's index is its partition number)
   * @param weight its importance for weighted policies, registered with the master at its arrival
   *     as a framework would (1: not registered; the trace has none)
   */
  public record Coflow(
      int id,
      long arrivalMs,
      int[] mapperHosts,
      int[] mappersOn,
      List<Reducer> reducers,
      double weight) {
    public Coflow(
        int id, long arrivalMs, int[] mapperHosts, int[] mappersOn, List<Reducer> reducers) {
      this(id, arrivalMs, mapperHosts, mappersOn, reducers, 1);
    }

    int mappers() {
      int n = 0;
      for (int m : mappersOn) {
        n += m;
      }
      return n;
    }

    /** Bytes reducer {@code r} fetches from the map output on {@code host}. */
    public long blockBytes(int host, int r) {
      for (int i = 0; i < mapperHosts.length; i++) {
        if (mapperHosts[i] == host) {
          return reducers.get(r).bytes() * mappersOn[i] / mappers();
        }
      }
      return 0;
    }

    /** Bytes of all its blocks. */
    public long bytes() {
      long sum = 0;
      for (int r = 0; r < reducers.size(); r++) {
        for (int h : mapperHosts) {
          sum += blockBytes(h, r);
        }
      }
      return sum;
    }

    /** Blocks of at least one byte (host pairs' flows, each reducer counted apart). */
    public int flows() {
      int n = 0;
      for (int r = 0; r < reducers.size(); r++) {
        for (int h : mapperHosts) {
          if (blockBytes(h, r) > 0) {
            n++;
          }
        }
      }
      return n;
    }
  }

  /** A reducer: where it runs and how many bytes it fetches in all. */
  public record Reducer(int host, long bytes) {}

  /** Bytes of every coflow. */
  public long bytes() {
    long sum = 0;
    for (Coflow c : coflows) {
      sum += c.bytes();
    }
    return sum;
  }

  /**
   * Coflows {@code first} to {@code first + count - 1} (0-based) of {@code trace} on {@code hosts}
   * hosts, their bytes divided by {@code bytesDivisor} and the time between arrivals by {@code
   * timeDivisor}; the first arrives at 0.
   */
  public static Workload fromTrace(
      Trace trace, int hosts, int first, int count, double bytesDivisor, double timeDivisor) {
    if (first < 0 || count < 1 || first + count > trace.coflows().size()) {
      throw new IllegalArgumentException(
          "coflows "
              + first
              + " to "
              + (first + count - 1)
              + ": the trace "
              + trace.source()
              + " has "
              + trace.coflows().size());
    }
    if (bytesDivisor <= 0 || timeDivisor <= 0) {
      throw new IllegalArgumentException(
          "divisors must be positive, got bytes " + bytesDivisor + ", time " + timeDivisor);
    }
    List<Coflow> out = new ArrayList<>();
    long t0 = trace.coflows().get(first).arrivalMs();
    for (TraceCoflow tc : trace.coflows().subList(first, first + count)) {
      TreeMap<Integer, Integer> on = new TreeMap<>();
      for (int port : tc.mappers()) {
        on.merge(port % hosts, 1, Integer::sum);
      }
      List<Reducer> reducers = new ArrayList<>();
      for (int r = 0; r < tc.reducers().length; r++) {
        long bytes = Math.round(tc.reducerMb()[r] * Trace.MB / bytesDivisor);
        reducers.add(new Reducer(tc.reducers()[r] % hosts, bytes));
      }
      out.add(
          new Coflow(
              tc.id(),
              Math.round((tc.arrivalMs() - t0) / timeDivisor),
              on.keySet().stream().mapToInt(Integer::intValue).toArray(),
              on.values().stream().mapToInt(Integer::intValue).toArray(),
              reducers));
    }
    return new Workload(
        String.format(
            java.util.Locale.ROOT,
            "%s coflows %d-%d, bytes/%.0f, time/%.0f",
            trace.source(),
            first,
            first + count - 1,
            bytesDivisor,
            timeDivisor),
        hosts,
        out);
  }
}
