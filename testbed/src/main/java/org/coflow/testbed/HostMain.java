package org.coflow.testbed;

import io.netty.buffer.ByteBuf;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.CRC32;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.core.config.Config;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.CourierConfig;
import org.coflow.courier.adapt.TcpCounters;
import org.coflow.courier.protocol.BlockSetId;
import org.coflow.courier.serve.BlockRegistry;

/**
 * One testbed host, run inside its network namespace by {@link TestbedRun}: it serves its map
 * outputs (through a Courier agent, or through the baseline's {@link ShuffleServer}), runs the
 * reducers the coordinator starts, and measures its connections and TCP counters. It talks to the
 * coordinator over stdin and stdout, one line per message, and exits when stdin ends.
 *
 * <pre>
 * in:  fetch COFLOW REDUCER HOST:BYTES[,HOST:BYTES...]   start a reducer
 *      counters                                            ask for the kernel's TCP counters
 *      quit
 * out: ready
 *      done COFLOW REDUCER END_NANOS BYTES CRC_SUM        a reducer finished
 *      fail COFLOW REDUCER MESSAGE
 *      sample NANOS CONNECTIONS                            every 100 ms
 *      counters KEY=VALUE ...
 * </pre>
 *
 * Arguments: {@code INDEX ADDRESSES(comma-separated, all hosts) DIR courier|baseline FETCHERS
 * [coflow.courier.KEY=VALUE ...]}.
 */
public final class HostMain {
  /** The agent's port in every host's namespace. */
  static final int AGENT_PORT = 7337;

  private static final String APP = "testbed";
  private static final PrintStream OUT =
      new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

  private final int index;
  private final String[] addresses;
  private final int fetchers;
  private final CourierAgent agent;
  private final ExecutorService copiers = Executors.newCachedThreadPool();

  private HostMain(int index, String[] addresses, int fetchers, CourierAgent agent) {
    this.index = index;
    this.addresses = addresses;
    this.fetchers = fetchers;
    this.agent = agent;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println(
          "usage: HostMain INDEX ADDRESSES DIR courier|baseline FETCHERS [coflow.courier.K=V ...]");
      System.exit(2);
    }
    int index = Integer.parseInt(args[0]);
    String[] addresses = args[1].split(",");
    Path dir = Path.of(args[2]).toRealPath();
    boolean courier = args[3].equals("courier");
    int fetchers = Integer.parseInt(args[4]);
    Map<String, String> raw = new HashMap<>();
    for (int i = 5; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      raw.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    InetSocketAddress me = new InetSocketAddress(addresses[index], 0);
    CourierAgent agent = null;
    ShuffleServer shuffle = null;
    if (courier) {
      Config cfg = Config.parse(raw, List.of("coflow.courier."), CourierConfig.REGISTRY);
      agent =
          CourierAgent.start(
              AgentOptions.forHost("h" + index)
                  .bind(new InetSocketAddress(me.getAddress(), AGENT_PORT))
                  .config(cfg)
                  .roots(List.of(dir)));
      agent
          .registry()
          .register(
              RegisterSpark.newBuilder()
                  .setAppId(APP)
                  .setExecId("h" + index)
                  .addLocalDirs(dir.toString())
                  .setSubDirsPerLocalDir(1)
                  .setChecksumAlgorithm("ADLER32")
                  .build(),
              BlockRegistry.IN_PROCESS);
    } else {
      shuffle = new ShuffleServer(new InetSocketAddress(me.getAddress(), ShuffleServer.PORT), dir);
    }
    HostMain host = new HostMain(index, addresses, fetchers, agent);
    Thread sampler = new Thread(HostMain::sample, "sampler");
    sampler.setDaemon(true);
    sampler.start();
    OUT.println("ready");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
      String[] f = line.split(" ");
      if (f[0].equals("fetch")) {
        host.fetch(Integer.parseInt(f[1]), Integer.parseInt(f[2]), f.length > 3 ? f[3] : "");
      } else if (f[0].equals("counters")) {
        OUT.println(host.counters());
      }
    }
    if (agent != null) {
      agent.close();
    }
    if (shuffle != null) {
      shuffle.close();
    }
    host.copiers.shutdownNow();
    System.exit(0);
  }

  private static void sample() {
    Set<Integer> ports = Set.of(AGENT_PORT, ShuffleServer.PORT);
    while (true) {
      OUT.println("sample " + System.nanoTime() + " " + ProcNet.dataConnections(ports));
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void fetch(int coflow, int reducer, String spec) {
    List<int[]> hosts = new ArrayList<>();
    List<Long> sizes = new ArrayList<>();
    for (String s : spec.isEmpty() ? new String[0] : spec.split(",")) {
      int colon = s.indexOf(':');
      hosts.add(new int[] {Integer.parseInt(s.substring(0, colon))});
      sizes.add(Long.parseLong(s.substring(colon + 1)));
    }
    CompletableFuture<long[]> done =
        agent != null
            ? viaAgent(coflow, reducer, hosts, sizes)
            : direct(coflow, reducer, hosts, sizes);
    done.whenComplete(
        (got, error) -> {
          if (error != null) {
            Throwable cause = error.getCause() != null ? error.getCause() : error;
            OUT.println(
                "fail " + coflow + " " + reducer + " " + String.valueOf(cause).replace('\n', ' '));
          } else {
            OUT.println(
                "done "
                    + coflow
                    + " "
                    + reducer
                    + " "
                    + System.nanoTime()
                    + " "
                    + got[0]
                    + " "
                    + got[1]);
          }
        });
  }

  private CompletableFuture<long[]> direct(
      int coflow, int reducer, List<int[]> hosts, List<Long> sizes) {
    List<BaselineReducer.Source> sources = new ArrayList<>();
    for (int i = 0; i < hosts.size(); i++) {
      int h = hosts.get(i)[0];
      sources.add(
          new BaselineReducer.Source(
              h, new InetSocketAddress(addresses[h], ShuffleServer.PORT), sizes.get(i)));
    }
    return BaselineReducer.fetch(copiers, coflow, reducer, sources, fetchers)
        .thenApply(o -> new long[] {o.bytes(), o.crcSum()});
  }

  /** One request to the host's agent for all the reducer's blocks: one coflow, many hosts. */
  private CompletableFuture<long[]> viaAgent(
      int coflow, int reducer, List<int[]> hosts, List<Long> sizes) {
    List<RemoteBlock> blocks = new ArrayList<>();
    for (int i = 0; i < hosts.size(); i++) {
      int h = hosts.get(i)[0];
      blocks.add(
          RemoteBlock.newBuilder()
              .setHostId("h" + h)
              .setAgentAddress(addresses[h] + ":" + AGENT_PORT)
              .setSize(sizes.get(i))
              .setBlock(
                  BlockRef.newBuilder()
                      .setBlockSet(BlockSetId.spark(APP, "h" + h).toString())
                      .setBlock(MapOutputs.blockName(coflow, h, reducer)))
              .build());
    }
    CRC32[] crcs = new CRC32[blocks.size()];
    for (int i = 0; i < crcs.length; i++) {
      crcs[i] = new CRC32();
    }
    List<CompletableFuture<Long>> parts =
        agent.fetchBlocks(
            coflowId(coflow),
            blocks,
            (int block, ByteBuf data) -> crcs[block].update(data.nioBuffer()));
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture[0]))
        .thenApply(
            x -> {
              long bytes = 0;
              long sum = 0;
              for (int i = 0; i < parts.size(); i++) {
                long n = parts.get(i).join();
                bytes += n;
                if (n > 0) {
                  sum += crcs[i].getValue();
                }
              }
              return new long[] {bytes, sum};
            });
  }

  /** The coflow id the agents report to the master. */
  static String coflowId(int coflow) {
    return APP + "/" + coflow;
  }

  private String counters() {
    StringBuilder sb = new StringBuilder("counters");
    try {
      Map<String, Long> c = TcpCounters.local().read();
      for (String k :
          List.of(
              "RetransSegs",
              "InSegs",
              "OutSegs",
              "TCPTimeouts",
              "TCPLossProbes",
              "TCPOFOQueue",
              "TCPSynRetrans")) {
        sb.append(' ').append(k).append('=').append(c.getOrDefault(k, 0L));
      }
    } catch (java.io.IOException e) {
      // no counters here: the coordinator reports them as missing
    }
    long[] dev = ProcNet.interfaceBytes("eth0");
    sb.append(" rxBytes=").append(dev[0]).append(" txBytes=").append(dev[1]);
    if (agent != null) {
      sb.append(" maxConnections=").append(agent.maxDataConnections());
      sb.append(" budget=").append(agent.connectionBudget());
      sb.append(" budgetChanges=").append(agent.connectionBudgetChanges());
      // The agent's own measurements (times in microseconds), as gauges: dp.NAME=VALUE.
      for (Map.Entry<String, Number> e : agent.metrics().snapshot().entrySet()) {
        if (TestbedReport.DATA_PLANE.contains(e.getKey())) {
          double v = e.getValue().doubleValue();
          long value = e.getKey().contains(".") ? Math.round(v * 1000) : Math.round(v);
          sb.append(" dp.").append(e.getKey()).append('=').append(value);
        }
      }
    }
    return sb.toString();
  }
}
