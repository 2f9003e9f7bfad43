package org.coflow.sim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.coflow.core.policy.Policies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/coflow sim} as users call it (the launcher only adds the class path). */
class SimCommandTest extends CliHarness {
  static final String TRACE = "data/coflow-benchmark/FB2010-1Hr-150-0.txt";

  @Test
  void jsonPrintsOneObjectPerPolicyWithTheDocumentedFields(@TempDir Path dir) throws Exception {
    assertEquals(
        0,
        run(
            "sim",
            "--trace",
            TRACE,
            "--coflows",
            "20",
            "--policy",
            "aalo,varys",
            "--json",
            "--out",
            dir.toString()));
    List<String> lines = out().lines().toList();
    assertEquals(3, lines.size(), out()); // fair (baseline), aalo, varys
    for (String field :
        List.of(
            "\"policy\":",
            "\"coflows\":20",
            "\"avg_cct_s\":",
            "\"p50_cct_s\":",
            "\"p95_cct_s\":",
            "\"p99_cct_s\":",
            "\"lower_bound_avg_cct_s\":",
            "\"wall_s\":")) {
      for (String line : lines) {
        assertTrue(
            line.startsWith("{") && line.endsWith("}") && line.contains(field),
            field + " in " + line);
      }
    }
    assertTrue(
        lines.get(0).contains("\"policy\":\"fair\"")
            && lines.get(0).contains("\"avg_vs_fair\":1,"));
    List<String> csv = Files.readAllLines(dir.resolve("coflows.csv"));
    assertEquals(1 + 3 * 20, csv.size());
    assertTrue(csv.get(0).startsWith("policy,coflow,arrival_s,cct_s,lower_bound_s"));
    assertTrue(Files.readString(dir.resolve("summary.json")).contains("\"policy\":\"varys\""));
    assertEquals(1000, ImageIO.read(dir.resolve("cct-cdf.png").toFile()).getWidth());
  }

  @Test
  void policiesSideBySideGiveTheResultsOfOneAtATimeInTheSameOrder() {
    String[] sim = {"sim", "--trace", TRACE, "--coflows", "40", "--json", "--threads", ""};
    List<List<String>> outputs = new java.util.ArrayList<>();
    for (String threads : List.of("1", "3")) {
      sim[sim.length - 1] = threads;
      assertEquals(0, run(sim), err());
      // (out() holds every run's output so far: take this run's lines, then drop wall_s, the one
      // field that may differ between runs)
      outputs.add(
          out()
              .lines()
              .skip((long) Policies.NAMES.size() * outputs.size())
              .map(l -> l.replaceAll("\"wall_s\":[0-9.eE-]+", ""))
              .toList());
    }
    int n = Policies.NAMES.size();
    assertEquals(n, outputs.get(0).size(), out());
    for (int i = 0; i < n; i++) {
      String policy = "\"policy\":\"" + Policies.NAMES.get(i) + "\"";
      assertTrue(outputs.get(0).get(i).contains(policy), outputs.get(0).get(i));
    }
    assertEquals(outputs.get(0), outputs.get(1));
    assertEquals(2, run("sim", "--trace", TRACE, "--threads", "0"));
    assertTrue(err().contains("--threads must be a positive whole number, got '0'"), err());
  }

  @Test
  void tablePrintsEveryBinNormalised() {
    assertEquals(
        0, run("sim", "--trace", TRACE, "--coflows", "10", "--policy", "varys", "--courier"));
    String text = out();
    assertTrue(text.contains("varys+courier"), text);
    assertTrue(
        text.contains("avg/fair") && text.contains("avg/LB") && text.contains("short-narrow"),
        text);
  }

  @Test
  void unknownPolicyListsTheValidNames() {
    assertEquals(2, run("sim", "--trace", TRACE, "--policy", "fair,sjf"));
    assertTrue(
        err()
            .contains(
                "unknown policy 'sjf'; valid policies: fair, aalo, varys, sincronia, "
                    + "graviton, baraat, creek, coda"),
        err());
  }

  @Test
  void badTraceNamesFileLineAndValue(@TempDir Path dir) throws Exception {
    Path bad = dir.resolve("bad.txt");
    Files.writeString(bad, "150 1\n1 0 1 3 1 4:-2.0\n");
    assertEquals(2, run("sim", "--trace", bad.toString()));
    assertTrue(
        err().contains(bad + ":2: reducer size '-2.0' of coflow 1 must be a positive number"),
        err());
    assertEquals(2, run("sim", "--trace", dir.resolve("missing.txt").toString()));
    assertTrue(err().contains("does not exist"), err());
  }

  @Test
  void badOptionsAndConfigAreRejectedClearly() {
    assertEquals(2, run("sim", "--trace", TRACE, "--bandwidth", "fast"));
    assertTrue(err().contains("invalid --bandwidth 'fast'"), err());
    assertEquals(2, run("sim", "--trace", TRACE, "--conf", "coflow.policy.dclas.queues=0"));
    assertTrue(
        err().contains("coflow.policy.dclas.queues") && err().contains("between 1 and 64"), err());
    assertEquals(2, run("sim", "--trace", TRACE, "--conf", "coflow.policy.delat=5ms"));
    assertTrue(err().contains("unknown configuration key 'coflow.policy.delat'"), err());
    assertEquals(2, run("sim", "--frobnicate"));
    assertTrue(err().contains("unknown option '--frobnicate'"), err());
    assertEquals(2, run("launch"));
    assertTrue(
        err().contains("the simulator runs 'sim', 'bench sim' and 'bench identify', not 'launch'"),
        err());
  }

  /**
   * Each engine replays the same coflows to the same completion times: every figure of the JSON
   * lines (seven digits) agrees to 1e-6 between the fastest engine each policy allows, flow by
   * flow, and the plain reference, all exact ({@code --coalesce 0}, the reference's only window).
   */
  @Test
  void everyEngineGivesTheSameFiguresAndMisuseIsNamed() {
    List<List<double[]>> outputs = new java.util.ArrayList<>();
    for (String engine : List.of("auto", "flows", "reference")) {
      long before = out().lines().count();
      List<String> argv =
          new java.util.ArrayList<>(
              List.of(
                  "sim",
                  "--trace",
                  TRACE,
                  "--coflows",
                  "30",
                  "--policy",
                  "aalo,creek",
                  "--json",
                  "--engine",
                  engine));
      if (!engine.equals("reference")) {
        argv.addAll(List.of("--coalesce", "0"));
      }
      assertEquals(0, run(argv.toArray(String[]::new)), err());
      List<String> lines = out().lines().skip(before).toList();
      assertEquals(3, lines.size(), out()); // fair, aalo, creek
      assertTrue(lines.stream().allMatch(l -> l.contains("\"engine\":\"" + engine + "\"")));
      outputs.add(lines.stream().map(SimCommandTest::figures).toList());
    }
    for (int e = 1; e < 3; e++) {
      for (int line = 0; line < 3; line++) {
        double[] a = outputs.get(0).get(line);
        double[] b = outputs.get(e).get(line);
        assertEquals(a.length, b.length);
        for (int i = 0; i < a.length; i++) {
          assertEquals(a[i], b[i], 1e-6 * Math.abs(a[i]), "engine " + e + " line " + line);
        }
      }
    }
    assertEquals(2, run("sim", "--trace", TRACE, "--engine", "warp"));
    assertTrue(err().contains("unknown engine 'warp': use auto, flows or reference"), err());
    assertEquals(2, run("sim", "--trace", TRACE, "--engine", "reference", "--coalesce", "0.01"));
    assertTrue(err().contains("--engine reference is exact") && err().contains("--coalesce"));
    assertEquals(2, run("sim", "--trace", TRACE, "--engine", "flows", "--identify", "normal"));
    assertTrue(err().contains("--engine does not apply to --identify"), err());
  }

  /** The numbers of a JSON line but its wall time and event count, in order. */
  private static double[] figures(String line) {
    String rest = line.replaceAll("\"(wall_s|events)\":[0-9.eE-]+", "");
    return java.util.regex.Pattern.compile("(?<=:)-?[0-9][0-9.eE-]*")
        .matcher(rest)
        .results()
        .mapToDouble(m -> Double.parseDouble(m.group()))
        .toArray();
  }

  @Test
  void referenceModelRunsAndItsMisuseIsNamed() {
    assertEquals(
        0,
        run(
            "sim",
            "--trace",
            TRACE,
            "--coflows",
            "20",
            "--policy",
            "aalo",
            "--model",
            "coflowsim"));
    assertTrue(out().contains("model: coflowsim"), out());
    assertTrue(out().contains("bandwidth=1048576k"), "coflowsim's ports: " + out());
    assertEquals(2, run("sim", "--trace", TRACE, "--model", "batch,warp"));
    assertTrue(err().contains("unknown model 'warp'"), err());
    assertEquals(2, run("sim", "--trace", TRACE, "--model", "coflowsim", "--courier"));
    assertTrue(err().contains("cannot be combined with --courier"), err());
    assertEquals(2, run("sim", "--trace", TRACE, "--model", "batch", "--identify", "normal"));
    assertTrue(err().contains("cannot be combined with --identify"), err());
    assertEquals(2, run("sim", "--trace", TRACE, "--model", "units", "--bandwidth", "10g"));
    assertTrue(err().contains("drop --bandwidth"), err());
  }

  @Test
  void everyCommandHasHelp() {
    for (String[] cmd :
        new String[][] {
          {"sim", "--help"}, {"bench", "sim", "--help"}, {"bench", "identify", "--help"}
        }) {
      out.reset();
      assertEquals(0, run(cmd), String.join(" ", cmd));
      assertTrue(out().startsWith("Usage: coflow"), out());
    }
  }
}
