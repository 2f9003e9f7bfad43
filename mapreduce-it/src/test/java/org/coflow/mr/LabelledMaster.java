package org.coflow.mr;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import org.coflow.core.config.Config;
import org.coflow.core.identify.Accuracy;
import org.coflow.core.identify.CoflowIdentifier;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.CoflowExtension;
import org.coflow.master.MasterServer;
import org.coflow.master.service.MasterConfig;
import org.coflow.master.service.MasterService;
import org.coflow.master.service.MasterSnapshot;
import org.coflow.sim.identify.LabelScore;

/**
 * CodaAgentMapReduceTest's master, in a JVM of its own (run on bench's build output, never on the
 * test class path: see the module's pom): a {@link MasterServer} under the CODA policy that
 * identifies flows in the dark, its identifier wrapped in {@link LabelScore}. Every arrival it
 * identifies is written to the file named by the first argument (label, start, ports, coflow
 * found). Commands on standard input, one answer line each on standard output:
 *
 * <ul>
 *   <li>{@code sessions}: {@code sessions <pid>,...}, the pids of the coda-agents whose session is
 *       open;
 *   <li>{@code score}: {@code score <flows> <precision> <recall> <label>=<n>;...};
 *   <li>{@code bytes}: {@code bytes <label>=<bytes>;...}, the most each labelled flow was seen to
 *       have sent in the master's model (sampled every 20 ms), summed per label;
 *   <li>{@code kill}: {@link MasterServer#kill()} (as a crash would), then {@code killed}.
 * </ul>
 *
 * The first line it writes is {@code port <grpc port>}; it closes the master at end of input.
 */
public final class LabelledMaster {
  private LabelledMaster() {}

  public static void main(String[] args) throws Exception {
    Path arrivals = Path.of(args[0]);
    Config config =
        Config.defaults()
            .with(MasterConfig.HOST, "127.0.0.1")
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, -1)
            .with(MasterConfig.POLICY, "coda")
            .with(MasterConfig.IDENTIFY_MODE, "coda");
    LabelScore score = new LabelScore(MasterService.identifier(config));
    PrintWriter out =
        new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
    try (PrintWriter log =
        new PrintWriter(Files.newBufferedWriter(arrivals, StandardCharsets.UTF_8), true)) {
      Logged logged = new Logged(score, log);
      MasterServer master = MasterServer.start(config, logged);
      java.util.concurrent.ScheduledExecutorService sampler =
          java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
      sampler.scheduleWithFixedDelay(
          () -> logged.sample(master.service().snapshot(Integer.MAX_VALUE)),
          20,
          20,
          java.util.concurrent.TimeUnit.MILLISECONDS);
      boolean killed = false;
      out.println("port " + master.port());
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        switch (line.trim()) {
          case "sessions" -> {
            MasterSnapshot s = master.service().snapshot(0);
            out.println(
                "sessions "
                    + s.agents().stream()
                        .filter(MasterSnapshot.Agent::watching)
                        .map(a -> a.labels().getOrDefault("pid", "?"))
                        .collect(Collectors.joining(",")));
          }
          case "score" -> {
            Accuracy a = score.accuracy();
            Map<String, Integer> labels = new TreeMap<>(score.flowsPerLabel());
            out.println(
                "score "
                    + a.flows()
                    + " "
                    + a.precision()
                    + " "
                    + a.recall()
                    + " "
                    + labels.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(";")));
          }
          case "bytes" -> out.println("bytes " + logged.bytesPerLabel());
          case "kill" -> {
            sampler.shutdownNow();
            if (!killed) {
              master.kill();
              killed = true;
            }
            out.println("killed");
          }
          default -> out.println("unknown command: " + line);
        }
      }
      sampler.shutdownNow();
      if (!killed) {
        master.close();
      }
    }
  }

  /** Passes everything through, writing each identified arrival to the log first. */
  private static final class Logged implements CoflowIdentifier {
    private final CoflowIdentifier delegate;
    private final PrintWriter log;

    /** Labelled flows by reporter and flow id: their label, and the most they were seen to send. */
    private final Map<String, String> labels = new java.util.concurrent.ConcurrentHashMap<>();

    private final Map<String, Double> sent = new java.util.concurrent.ConcurrentHashMap<>();

    Logged(CoflowIdentifier delegate, PrintWriter log) {
      this.delegate = delegate;
      this.log = log;
    }

    @Override
    public List<String> identify(List<Arrival> arrivals, long roundMillis) {
      List<String> ids = delegate.identify(arrivals, roundMillis);
      for (int i = 0; i < arrivals.size(); i++) {
        Arrival a = arrivals.get(i);
        Map<String, String> attrs = a.attributes();
        String label = attrs.get(LabelScore.LABEL);
        if (label != null) {
          labels.put(a.reporter() + "/" + a.flowId(), label);
        }
        log.printf(
            "round=%d start=%d label=%s src_port=%s dst_port=%s reporter=%s src=%s dst=%s"
                + " coflow=%s%n",
            roundMillis,
            a.startMillis(),
            attrs.getOrDefault(LabelScore.LABEL, "-"),
            attrs.getOrDefault("src_port", "-"),
            attrs.getOrDefault("dst_port", "-"),
            a.reporter(),
            a.srcHost(),
            a.dstHost(),
            ids.get(i));
      }
      return ids;
    }

    void sample(MasterSnapshot s) {
      for (MasterSnapshot.CoflowView c : s.coflows()) {
        for (MasterSnapshot.FlowView f : c.flows()) {
          String key = f.reporter() + "/" + f.flowId();
          if (labels.containsKey(key)) {
            sent.merge(key, f.sent(), Math::max);
          }
        }
      }
    }

    String bytesPerLabel() {
      Map<String, Long> per = new TreeMap<>();
      sent.forEach((k, b) -> per.merge(labels.get(k), (long) (double) b, Long::sum));
      return per.entrySet().stream()
          .map(e -> e.getKey() + "=" + e.getValue())
          .collect(Collectors.joining(";"));
    }

    @Override
    public void departed(long handle) {
      delegate.departed(handle);
    }

    @Override
    public CoflowExtension extension(ToLongFunction<Flow> handleOf) {
      return delegate.extension(handleOf);
    }
  }
}
