package org.coflow.sim.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import org.coflow.core.config.Args;
import org.coflow.core.config.Config;
import org.coflow.core.config.ConfigRegistry;
import org.coflow.core.config.ConfigType;
import org.coflow.core.config.Units;
import org.coflow.core.config.UsageException;
import org.coflow.core.merge.MergeConfig;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.sim.engine.CoflowsimDark;
import org.coflow.sim.engine.CoflowsimFair;
import org.coflow.sim.engine.CourierPolicy;
import org.coflow.sim.engine.InvariantChecker;
import org.coflow.sim.engine.Model;
import org.coflow.sim.engine.ProgressListener;
import org.coflow.sim.engine.SimResult;
import org.coflow.sim.engine.Simulator;
import org.coflow.sim.report.CdfPlot;
import org.coflow.sim.report.Reports;
import org.coflow.sim.report.RunSummary;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceFormatException;
import org.coflow.sim.trace.TraceParser;

/** {@code bin/coflow sim}: replay a coflow trace under several policies and compare CCTs. */
public final class SimCommand {
  /** The shipped Facebook coflow trace (sim/data/coflow-benchmark/README.md). */
  public static final String DEFAULT_TRACE = "sim/data/coflow-benchmark/FB2010-1Hr-150-0.txt";

  /** The agent's keys the simulator reads: Courier's merge parameters (--courier). */
  private static final ConfigRegistry MERGE_KEYS =
      new ConfigRegistry("Courier merge rules", "MaxNum and MinSize, as the agent reads them.");

  static {
    MERGE_KEYS.add(MergeConfig.MAX_NUM);
    MERGE_KEYS.add(MergeConfig.MIN_SIZE);
  }

  static final String HELP =
      """
      Usage: coflow sim [--trace FILE] [--policy LIST] [--courier] [--bandwidth RATE]
                        [--out DIR] [--json] [--coflows N] [--check]
                        [--coalesce W] [--model M] [--engine E] [--threads N]
                        [--config FILE] [--conf KEY=VALUE ...]

      Replays a coflow trace (coflow-benchmark format) on a big-switch fabric, once per
      policy, and prints average, median, p95 and p99 coflow completion time (CCT),
      overall and per bin (short/long: longest flow below/at least 5 MB; narrow/wide:
      at most/more than 50 flows), each normalised to per-flow fair sharing (avg/fair,
      below 1 is faster) and to the isolated lower bound (avg/LB, at least 1).

        --trace FILE       trace to replay (default: the shipped Facebook trace,
                           sim/data/coflow-benchmark/FB2010-1Hr-150-0.txt)
        --policy LIST      comma-separated policies, default all of:
                           %s
                           fair is always run as the baseline
        --courier          wrap each policy with Courier merging (Alg. 2/3,
                           coflow.courier.maxNum / minSize)
        --bandwidth RATE   every port's uplink and downlink, in bits/s (default 1g
                           = 125,000,000 bytes/s)
        --out DIR          write coflows.csv (per coflow), summary.json and
                           cct-cdf.png (CDF of CCTs per policy) to DIR
        --json             print one JSON object per policy per line on stdout
                           instead of the table
        --coflows N        replay only the first N coflows of the trace
        --check            verify capacity and work conservation at every event
        --coalesce W       relative completion window (default %s): flows finishing
                           within dt*(1+W) of the next completion finish together at
                           its end; CCTs can only grow, by at most W of the gaps
                           between events. 0 = exact, one event per completion time
        --model M          default (ours), coflowsim (every modelling choice of the
                           public reference simulator coflowsim), or a comma-separated
                           list of its choices: batch (admission on a 10.24 s grid, CCT
                           from it), units (131,072,000 B/s ports; excludes
                           --bandwidth), fair (min(C/n_src, C/n_dst) per flow, not
                           water-filled), dclas (its D-CLAS: FIFO by queue entry, one
                           equal split per coflow, no backfill), events (coordinated
                           policies decide only on coflow admissions and departures),
                           quanta (finish times rounded up to 8 ms). See
                           docs/results.md ("The reference simulator's model").
                           Not with --courier or --identify; --check then checks
                           capacity only.
        --engine E         what moves the flows between events: auto (default: the
                           fastest the policy declares it allows: by sender-receiver
                           pair for fair sharing, by level group for Creek, a flow only
                           when its rate changes for Aalo, Baraat, Graviton, SCF),
                           flows (flow by flow, every policy), or reference (the plain
                           engine the others are checked against: exact, no completion
                           window, slow; not with --model). At --coalesce 0 the engines'
                           completion times agree to about 1e-9 relative
        --threads N        policies replayed at once (default: one per core, here
                           %d). Results do not depend on it; each run's wall_s does
                           (runs side by side share the machine)
        --config FILE      a properties file of coflow.policy.* / coflow.courier.* keys
        --conf KEY=VALUE   one such key (repeatable; see docs/configuration.md)
        --help             this text

      Coflows in the dark (CODA): with --identify, every flow starts at its own time and six
      runs compare per-flow fair sharing, Aalo with the true coflows, and CODA with the coflows
      it identifies online: with late binding and intra-coflow prioritisation, without either,
      and without both (Aalo on the identified coflows). --policy, --courier, --out and
      --coalesce do not apply.

        --identify W       normal, batch or stretched start-time model (CODA §6.1: Spark flows
                           within 100 ms of their coflow, Hadoop within 1 s plus an exponential
                           100 ms; batch: a window's coflows within 300 ms; stretched: within
                           5 s, Hadoop plus an exponential 1 s)
        --framework F      spark, hadoop or mixed (default spark)
        --batch-interval S the batch model's window in seconds (default 10)
        --round S          flows are admitted (and identified) in rounds of S seconds
                           (default 0.1)
        --eps E, --tau T   identification radius and leader range (default 1.0 and 0.5)
        --metric FILE      learned weights (bin/coflow bench identify --learn FILE)
        --runs LIST        only these of coda, coda-no-late-binding, coda-no-intra,
                           coda-no-both (fair and aalo always run: the ratios use them)
        late binding's diameter: --conf coflow.policy.coda.lateBinding=D (0 = off)

      Example:
        coflow sim --policy fair,aalo,varys --out /tmp/sim
        coflow sim --identify stretched --framework hadoop --coflows 200
      """
          .formatted(
              String.join(",", Policies.NAMES), Simulator.DEFAULT_COALESCE, defaultThreads());

  /** One policy per core. */
  static int defaultThreads() {
    return Runtime.getRuntime().availableProcessors();
  }

  private SimCommand() {}

  public static int run(String[] argv, Path home, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Args a =
        Args.parse(
            "coflow sim",
            argv,
            Set.of(
                "trace",
                "policy",
                "bandwidth",
                "out",
                "coflows",
                "config",
                "conf",
                "coalesce",
                "model",
                "engine",
                "identify",
                "framework",
                "batch-interval",
                "round",
                "eps",
                "tau",
                "metric",
                "runs",
                "threads"),
            Set.of("courier", "json", "check", "help"));
    if (a.has("help")) {
      out.print(HELP);
      return 0;
    }
    Options o = Options.from(a, home);
    if (a.has("identify")) {
      return SimIdentifyCommand.run(a, o, out, err);
    }
    if (!o.model.isDefault() && !o.json) {
      out.println(
          "model: "
              + o.model.label()
              + " (the reference simulator coflowsim's choices; see docs/results.md)");
    }
    List<SimResult> results = simulate(o, err, o.json ? null : out);
    List<RunSummary> summaries = new ArrayList<>();
    for (SimResult r : results) {
      summaries.add(RunSummary.of(r, results.get(0)));
    }
    for (RunSummary s : summaries) {
      if (o.json) {
        out.println(
            Reports.json(s, o.bandwidthText)
                .put("model", o.model.label())
                .put("engine", o.engine.label()));
      }
    }
    if (o.out != null) {
      Files.createDirectories(o.out);
      Reports.writeCsv(o.out.resolve("coflows.csv"), results);
      Reports.writeSummary(o.out.resolve("summary.json"), summaries, o.bandwidthText);
      CdfPlot.write(
          o.out.resolve("cct-cdf.png"),
          results,
          "CCT CDF: "
              + o.trace.source().replaceAll(".*/", "")
              + ", "
              + o.bandwidthText
              + "bit/s ports");
      err.println("wrote " + o.out.resolve("coflows.csv") + ", summary.json, cct-cdf.png");
    }
    return 0;
  }

  /**
   * Runs the baseline (fair) first and then every requested policy, {@link Options#threads} at a
   * time, printing each table as soon as its run and every run before it have ended when {@code
   * table} is not null. The results are in run order and do not depend on the number of threads:
   * every run has its own state and policy, and shares only the (immutable) trace.
   */
  static List<SimResult> simulate(Options o, PrintStream err, PrintStream table) {
    Simulator sim = new Simulator(o.trace, o.bandwidth, o.coalesce, o.model);
    List<String> runs = new ArrayList<>();
    runs.add("fair");
    for (String p : o.policies) {
      if (!(p.equals("fair") && !o.courier)) {
        runs.add(p);
      }
    }
    int threads = Math.max(1, Math.min(o.threads, runs.size()));
    ProgressBar.Board board = ProgressBar.Board.forTerminal(err, runs.size());
    List<SimResult> results = new ArrayList<>();
    ExecutorService pool = threads > 1 ? Executors.newFixedThreadPool(threads, SIM_THREADS) : null;
    try {
      List<Future<SimResult>> futures = new ArrayList<>();
      for (int i = 0; pool != null && i < runs.size(); i++) {
        String name = runs.get(i);
        boolean wrap = i > 0 && o.courier;
        futures.add(pool.submit(() -> run(sim, name, wrap, o, board)));
      }
      for (int i = 0; i < runs.size(); i++) {
        SimResult r =
            pool == null ? run(sim, runs.get(i), i > 0 && o.courier, o, board) : result(futures, i);
        results.add(r);
        if (table != null) {
          if (board != null) {
            board.clear();
          }
          Reports.printTable(table, RunSummary.of(r, results.get(0)), o.bandwidthText);
          table.flush();
        }
      }
    } finally {
      if (pool != null) {
        pool.shutdownNow();
      }
      if (board != null) {
        board.clear();
      }
    }
    return results;
  }

  /** The i-th run's result, waiting for it; its failure is thrown as it was raised. */
  private static SimResult result(List<Future<SimResult>> futures, int i) {
    try {
      return futures.get(i).get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while replaying the trace", e);
    }
  }

  /** Simulation threads: daemons, so that a failed run does not keep the JVM alive. */
  private static final ThreadFactory SIM_THREADS =
      r -> {
        Thread t = new Thread(r, "coflow-sim");
        t.setDaemon(true);
        return t;
      };

  private static SimResult run(
      Simulator sim, String name, boolean wrap, Options o, ProgressBar.Board board) {
    SchedulingPolicy policy = policy(name, o);
    if (wrap) {
      policy =
          new CourierPolicy(
              policy, o.config.get(MergeConfig.MAX_NUM), o.config.get(MergeConfig.MIN_SIZE));
    }
    // The reference model is not work-conserving: with --model only capacity is checked.
    InvariantChecker checker = o.check ? new InvariantChecker(!wrap && o.model.isDefault()) : null;
    ProgressListener progress =
        board == null ? ProgressListener.NONE : board.slot(wrap ? name + "+courier" : name);
    try {
      return sim.run(policy, wrap, checker, progress, o.engine);
    } finally {
      if (board != null) {
        board.finished(progress);
      }
    }
  }

  /** The policy to run: ours, or the reference simulator's allocation where the model says so. */
  static SchedulingPolicy policy(String name, Options o) {
    if (name.equals("fair") && o.model.has(Model.Choice.FAIR)) {
      return new CoflowsimFair();
    }
    if (name.equals("aalo") && o.model.has(Model.Choice.DCLAS)) {
      return new CoflowsimDark();
    }
    return Policies.create(name, o.config);
  }

  /** Validated options of a simulation run. */
  static final class Options {
    Trace trace;
    List<String> policies;
    boolean courier;
    double bandwidth;
    String bandwidthText;
    Path out;
    boolean json;
    boolean check;
    double coalesce;
    Model model = Model.DEFAULT;
    Simulator.Engine engine = Simulator.Engine.AUTO;
    boolean defaultTrace;
    Config config;
    int threads = defaultThreads();

    static Options from(Args a, Path home) throws UsageException, IOException {
      Options o = new Options();
      Path tracePath = a.has("trace") ? Path.of(a.get("trace", null)) : home.resolve(DEFAULT_TRACE);
      o.defaultTrace = !a.has("trace");
      if (!Files.isRegularFile(tracePath)) {
        throw new UsageException(
            "coflow sim: trace file '" + tracePath + "' does not exist or is not a file");
      }
      try {
        o.trace = TraceParser.parse(tracePath);
      } catch (TraceFormatException e) {
        throw new UsageException("coflow sim: bad trace: " + e.getMessage());
      }
      if (a.has("coflows")) {
        String n = a.get("coflows", null);
        try {
          int k = Integer.parseInt(n);
          if (k < 1) {
            throw new NumberFormatException();
          }
          o.trace = o.trace.first(k);
        } catch (NumberFormatException e) {
          throw new UsageException(
              "coflow sim: --coflows must be a positive whole number, got '" + n + "'");
        }
      }
      LinkedHashSet<String> names = new LinkedHashSet<>();
      for (String p : a.get("policy", String.join(",", Policies.NAMES)).split(",")) {
        String name = p.trim().toLowerCase(Locale.ROOT);
        if (!Policies.NAMES.contains(name)) {
          throw new UsageException(
              "coflow sim: unknown policy '"
                  + p.trim()
                  + "'; valid policies: "
                  + String.join(", ", Policies.NAMES));
        }
        names.add(name);
      }
      o.policies = new ArrayList<>(names);
      o.courier = a.has("courier");
      o.bandwidthText = a.get("bandwidth", "1g");
      try {
        o.bandwidth = ConfigType.BIT_RATE.parse(o.bandwidthText);
      } catch (IllegalArgumentException e) {
        throw new UsageException(
            "coflow sim: invalid --bandwidth '" + o.bandwidthText + "': " + e.getMessage());
      }
      o.bandwidthText = Units.formatBitRate(o.bandwidth);
      o.out = a.has("out") ? Path.of(a.get("out", null)) : null;
      o.json = a.has("json");
      o.check = a.has("check");
      String w = a.get("coalesce", String.valueOf(Simulator.DEFAULT_COALESCE));
      try {
        o.coalesce = Double.parseDouble(w);
        if (!(o.coalesce >= 0 && o.coalesce < 1)) {
          throw new NumberFormatException();
        }
      } catch (NumberFormatException e) {
        throw new UsageException(
            "coflow sim: --coalesce must be a number in [0, 1), got '" + w + "'");
      }
      o.config = config(a);
      if (a.has("threads")) {
        String t = a.get("threads", null);
        try {
          o.threads = Integer.parseInt(t);
          if (o.threads < 1) {
            throw new NumberFormatException();
          }
        } catch (NumberFormatException e) {
          throw new UsageException(
              "coflow sim: --threads must be a positive whole number, got '" + t + "'");
        }
      }
      if (a.has("model")) {
        try {
          o.model = Model.parse(a.get("model", "default"));
        } catch (IllegalArgumentException e) {
          throw new UsageException("coflow sim: " + e.getMessage());
        }
      }
      if (a.has("engine")) {
        try {
          o.engine = Simulator.Engine.parse(a.get("engine", "auto"));
        } catch (IllegalArgumentException e) {
          throw new UsageException("coflow sim: --engine: " + e.getMessage());
        }
        if (a.has("identify")) {
          throw new UsageException(
              "coflow sim: --engine does not apply to --identify (flows arrive one by one there,"
                  + " in an engine of its own); drop one of them");
        }
        boolean windowed = a.has("coalesce") && o.coalesce != 0;
        if (o.engine == Simulator.Engine.REFERENCE && (windowed || a.has("model"))) {
          throw new UsageException(
              "coflow sim: --engine reference is exact and replays the default model: drop "
                  + (windowed ? "--coalesce (or give 0)" : "--model"));
        }
      }
      if (!o.model.isDefault()) {
        if (o.courier || a.has("identify")) {
          throw new UsageException(
              "coflow sim: --model "
                  + o.model.label()
                  + " cannot be combined with "
                  + (o.courier ? "--courier" : "--identify")
                  + " (the reference model knows neither Courier nor coflow identification);"
                  + " drop one of them");
        }
        if (o.model.has(Model.Choice.UNITS)) {
          if (a.has("bandwidth")) {
            throw new UsageException(
                "coflow sim: --model "
                    + o.model.label()
                    + " sets the ports to coflowsim's 131,072,000 B/s (its 'units' choice);"
                    + " drop --bandwidth or leave 'units' out of --model");
          }
          o.bandwidth = Model.COFLOWSIM_BYTES_PER_SECOND;
          o.bandwidthText = Units.formatBitRate(o.bandwidth);
        }
      }
      return o;
    }

    private static Config config(Args a) throws UsageException, IOException {
      Map<String, String> raw = new HashMap<>();
      if (a.has("config")) {
        Path file = Path.of(a.get("config", null));
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
          props.load(in);
        } catch (java.nio.file.NoSuchFileException e) {
          throw new UsageException("coflow sim: config file '" + file + "' does not exist");
        }
        props.stringPropertyNames().forEach(k -> raw.put(k, props.getProperty(k)));
      }
      for (String kv : a.all("conf")) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          throw new UsageException("coflow sim: --conf needs KEY=VALUE, got '" + kv + "'");
        }
        raw.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
      }
      try {
        return Config.parse(raw, List.of("coflow."), PolicyConfig.REGISTRY, MERGE_KEYS);
      } catch (IllegalArgumentException e) {
        throw new UsageException("coflow sim: " + e.getMessage());
      }
    }
  }
}
