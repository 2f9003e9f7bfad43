package org.coflow.stress.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.coflow.core.config.Args;
import org.coflow.core.config.Units;
import org.coflow.core.config.UsageException;
import org.coflow.sim.report.Json;
import org.coflow.stress.load.AgentLoad;

/** {@code bin/coflow bench load}: one agent with capped memory under idle and streaming load. */
public final class AgentLoadCommand {
  static final String HELP =
      """
      Usage: coflow bench load [--streams N] [--idle N] [--direct-memory BYTES] [--clients N]
                               [--block-size BYTES] [--streams-per-connection N]
                               [--partial BYTES] [--dribble N] [--attacker-hosts N] [--keep]
                               [--json]

      bench load: one agent in a JVM of its own with a cluster secret, its direct memory capped
      (-XX:MaxDirectMemorySize of twice --direct-memory; coflow.courier.maxBufferedBytes of
      --direct-memory), under --idle hostile connections (silent ones; a first frame announcing
      16 MiB; a HELLO of 16 KiB never finished; peers with the secret that send --partial bytes of
      a 16 MiB request and stop) from --attacker-hosts loopback addresses (127.0.0.2 on), while
      --streams block streams of clients with the secret (from 127.0.0.1) run at once over
      --clients connections (the agent allows --streams-per-connection each), each block
      compared byte for byte; a stream refused with BUSY is retried. --dribble adds peers without
      the secret that send a HELLO one byte per segment. Before the streams, 40 newcomers (a
      client that connects afresh, proves the secret and fetches one block) arrive one after
      another, first without the attackers (after 40 more to warm up) and then among them: their p99 times side by side,
      goal <= 2x. Prints streams completed, refusals by bound, connections refused, peak direct
      and heap memory of the agent's JVM and whether an OutOfMemoryError occurred there; exits 1
      if one did, a stream failed or a newcomer did not get its block. Defaults: 1000
      streams, 500 idle, 64m, 8 clients, 256k blocks, 64 streams per connection, 1m partial
      requests, no dribblers, 4 attacker addresses.
      --keep leaves the run's directory (with the agent's log, agent.log) in place.
      """;

  private AgentLoadCommand() {}

  public static int run(String[] argv, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow bench load",
            argv,
            Set.of(
                "streams",
                "idle",
                "direct-memory",
                "clients",
                "block-size",
                "streams-per-connection",
                "partial",
                "dribble",
                "attacker-hosts"),
            Set.of("json", "help", "keep"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    int streams = (int) integer(a, "streams", "1000", 1);
    int idle = (int) integer(a, "idle", "500", 0);
    int clients = (int) integer(a, "clients", "8", 1);
    int perConnection = (int) integer(a, "streams-per-connection", "64", 1);
    int dribble = (int) integer(a, "dribble", "0", 0);
    int attackerHosts = (int) integer(a, "attacker-hosts", "4", 1);
    long cap = bytes(a, "direct-memory", "64m");
    long blockSize = bytes(a, "block-size", "256k");
    long partial = bytes(a, "partial", "1m");
    if (blockSize > 64 << 20) {
      throw new UsageException("coflow bench load: --block-size is at most 64m, got " + blockSize);
    }
    boolean json = a.has("json");
    System.setProperty("org.slf4j.simpleLogger.log.org.coflow.courier", "error");
    Path dir = Files.createTempDirectory("coflow-bench-load");
    AgentLoad.Result r;
    try {
      r =
          new AgentLoad(streams, idle, cap, clients, (int) blockSize)
              .streamsPerConnection(perConnection)
              .partialBytes(partial)
              .dribblers(dribble)
              .attackerHosts(attackerHosts)
              .run(dir, json ? null : err);
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow bench load: " + e.getMessage());
    } catch (Exception e) {
      err.println("coflow bench load: the run failed: " + e);
      return 1;
    } finally {
      if (a.has("keep")) {
        err.println("coflow bench load: kept " + dir + " (the agent's log is agent.log)");
      } else {
        try (Stream<Path> files = Files.walk(dir)) {
          files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
    if (json) {
      out.println(
          new Json()
              .put("streams", r.streams())
              .put("idle", r.idle())
              .put("attacker_hosts", r.attackerHosts())
              .put("clients", r.clients())
              .put("block_size", r.blockSize())
              .put("max_streams_per_connection", r.streamsPerConnection())
              .put("streams_completed", r.completed())
              .put("streams_wrong_bytes", r.wrongBytes())
              .put("streams_failed", r.failed())
              .put("stream_attempts", r.attempts())
              .put("busy_refusals", r.busyTotal())
              .put("busy_by_reason", json(r.busy()))
              .put("other_errors", json(r.errors()))
              .put("client_connections_refused", r.clientConnectRefusals())
              .put("idle_held", r.idleHeld())
              .put("idle_still_open_at_end", r.idleStillOpen())
              .put("idle_refused", json(r.idleRefused()))
              .put("dribblers", r.dribblers())
              .put("dribbled_bytes", r.dribbled())
              .put("agent_refused_connections", r.agentRefused())
              .put("buffered_cap_bytes", r.bufferedCap())
              .put("buffered_peak_bytes", r.bufferedPeak())
              .put("buffered_refusals", r.bufferedRefused())
              .put("direct_cap_bytes", r.directCap())
              .put("direct_peak_bytes", r.directPeak())
              .put("netty_pooled_direct_peak_bytes", r.nettyDirectPeak())
              .put("heap_peak_bytes", r.heapPeak())
              .put("heap_max_bytes", r.heapMax())
              .put("out_of_memory", r.outOfMemory())
              .put("out_of_memory_lines", r.outOfMemoryLines())
              .put("agent_exit", r.agentExit())
              .put("stream_seconds", r.streamSeconds())
              .put("newcomers", r.quiet().probes())
              .put("newcomers_failed_quiet", r.quiet().failed())
              .put("newcomers_failed_hostile", r.hostile().failed())
              .put("newcomer_p99_ms_quiet", r.quiet().p99Millis())
              .put("newcomer_p99_ms_hostile", r.hostile().p99Millis())
              .put("newcomer_p99_ratio", r.hostile().p99Millis() / r.quiet().p99Millis())
              .put("ok", r.ok()));
    } else {
      out.printf(
          Locale.ROOT,
          "%d streams of %d bytes over %d clients (the agent allows %d per connection), %d hostile"
              + " idle connections from %d addresses, %d dribblers; %.1f s%n",
          r.streams(),
          r.blockSize(),
          r.clients(),
          r.streamsPerConnection(),
          r.idle(),
          r.attackerHosts(),
          r.dribblers(),
          r.streamSeconds());
      row(out, "streams completed, right bytes", r.completed() + " of " + r.streams());
      row(out, "streams with wrong bytes", r.wrongBytes());
      row(out, "streams given up", r.failed());
      row(out, "attempts (retries after refusals)", r.attempts());
      row(out, "BUSY refusals of streams", r.busyTotal() + " " + r.busy());
      row(out, "other failed attempts", r.errors());
      row(out, "client connections refused", r.clientConnectRefusals());
      row(out, "idle connections held / still open", r.idleHeld() + " / " + r.idleStillOpen());
      row(out, "idle connections refused at once", r.idleRefused());
      row(out, "connections refused by the agent", r.agentRefused());
      row(
          out,
          "buffered bytes: peak / cap (refusals)",
          mib(r.bufferedPeak()) + " / " + mib(r.bufferedCap()) + " (" + r.bufferedRefused() + ")");
      row(out, "direct memory: peak / cap", mib(r.directPeak()) + " / " + mib(r.directCap()));
      row(out, "Netty pooled direct: peak", mib(r.nettyDirectPeak()));
      row(out, "heap: peak used / max", mib(r.heapPeak()) + " / " + mib(r.heapMax()));
      row(out, "OutOfMemoryError", r.outOfMemory() ? "YES " + r.outOfMemoryLines() : "none");
      row(
          out,
          "newcomers: failed quiet / hostile",
          r.quiet().failed()
              + " / "
              + r.hostile().failed()
              + " of "
              + r.quiet().probes()
              + " each");
      row(
          out,
          "newcomer p50/p99 quiet, ms",
          String.format(Locale.ROOT, "%.1f / %.1f", r.quiet().p50Millis(), r.quiet().p99Millis()));
      row(
          out,
          "newcomer p50/p99 hostile, ms",
          String.format(
              Locale.ROOT, "%.1f / %.1f", r.hostile().p50Millis(), r.hostile().p99Millis()));
      double ratio = r.hostile().p99Millis() / r.quiet().p99Millis();
      row(
          out,
          "newcomer p99 hostile / quiet",
          String.format(
              Locale.ROOT, "%.2f (goal <= 2.00: %s)", ratio, ratio <= 2.0 ? "met" : "NOT met"));
      out.println(r.ok() ? "OK" : "FAILED");
    }
    return r.ok() ? 0 : 1;
  }

  private static Json json(Map<String, Long> counts) {
    Json j = new Json();
    counts.forEach(j::put);
    return j;
  }

  private static void row(PrintStream out, String what, Object value) {
    out.printf(Locale.ROOT, "  %-38s %s%n", what, value);
  }

  private static String mib(long bytes) {
    return bytes < 0 ? "?" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
  }

  private static long integer(Args a, String name, String fallback, long min)
      throws UsageException {
    String text = a.get(name, fallback);
    try {
      long v = Long.parseLong(text);
      if (v >= min && v <= Integer.MAX_VALUE) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(
        "coflow bench load: --"
            + name
            + " must be an integer of at least "
            + min
            + ", got '"
            + text
            + "'");
  }

  private static long bytes(Args a, String name, String fallback) throws UsageException {
    try {
      return Units.parseBytes(a.get(name, fallback));
    } catch (IllegalArgumentException e) {
      throw new UsageException("coflow bench load: --" + name + ": " + e.getMessage());
    }
  }
}
