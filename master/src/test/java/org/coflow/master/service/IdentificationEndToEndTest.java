package org.coflow.master.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.coflow.api.proto.v1.FlowSchedule;
import org.coflow.core.config.Config;
import org.coflow.core.policy.PolicyConfig;
import org.coflow.master.MasterServer;
import org.coflow.master.service.LoopbackCluster.TestFlow;
import org.junit.jupiter.api.Test;

/**
 * CODA end to end: four agents on loopback report two shuffles' flows <em>without</em> coflow ids
 * over gRPC (Spark-like: each reducer's flows share its executor port; the second shuffle starts 6
 * s after the first), next to one flow of a registered coflow. The master must group the id-less
 * flows into exactly the two shuffles, and the schedule it pushes must treat each identified coflow
 * as one: one priority for all its flows (they are all in the first flow queue), the earlier coflow
 * first, the flows with the known id in a coflow of their own. When the first shuffle's flows
 * finish, its coflow leaves and later flows still find the second's.
 */
class IdentificationEndToEndTest {
  private static final long T0 = 1_700_000_000_000L;

  @Test
  void idLessFlowsAreIdentifiedAndScheduledAsCoflows() throws Exception {
    Config config =
        Config.defaults()
            .with(PolicyConfig.DELTA_MS, 20L)
            .with(MasterConfig.PORT, 0)
            .with(MasterConfig.HTTP_PORT, -1)
            .with(MasterConfig.HOST, "127.0.0.1")
            .with(MasterConfig.POLICY, "coda")
            .with(MasterConfig.PUSH_TOLERANCE, 0.0);
    try (MasterServer server = MasterServer.start(config, null);
        LoopbackCluster agents = new LoopbackCluster(server.port(), 1000, "h1", "h2", "h3", "h4")) {
      MasterService master = server.service();
      LoopbackCluster.await("four sessions", () -> master.snapshot(0).agents().size() == 4);
      // Shuffle X: mappers h1, h2 -> reducers h3 (executor port 40001), h4 (40002), within 60 ms.
      int[][] x = {{1, 1, 3}, {2, 1, 4}, {3, 2, 3}, {4, 2, 4}};
      for (int[] f : x) {
        agents.reportDark(
            f[0], "h" + f[1], "h" + f[2], T0 + 20L * f[0], 40000 + f[2] - 2, size(f[0]));
      }
      LoopbackCluster.await("shuffle X in the model", () -> master.activeFlows() == 4);
      // Shuffle Y, 6 s later: mappers h3, h4 -> reducers h1 (41001), h2 (41002); and a known
      // coflow.
      int[][] y = {{5, 3, 1}, {6, 3, 2}, {7, 4, 1}, {8, 4, 2}};
      for (int[] f : y) {
        agents.reportDark(
            f[0], "h" + f[1], "h" + f[2], T0 + 6000 + 20L * f[0], 41000 + f[2], size(f[0]));
      }
      agents.report(new TestFlow(9, "Z", "h1", "h2", 0, size(9)));
      LoopbackCluster.await("shuffle Y in the model", () -> master.activeFlows() == 9);

      Map<String, Set<Long>> coflows = coflowsBySizes(master);
      assertEquals(3, coflows.size(), "two identified coflows and Z: " + coflows);
      assertEquals(Set.of(size(9)), coflows.get("Z"));
      List<Set<Long>> identified = new ArrayList<>();
      coflows.forEach(
          (id, sizes) -> {
            if (!id.equals("Z")) {
              assertTrue(id.startsWith("coda:"), id);
              identified.add(sizes);
            }
          });
      assertTrue(identified.contains(sizes(x)), "shuffle X is one coflow: " + coflows);
      assertTrue(identified.contains(sizes(y)), "shuffle Y is one coflow: " + coflows);

      LoopbackCluster.await("every flow's schedule pushed", () -> pushed(agents, 9) != null);
      Map<Long, FlowSchedule> got = pushed(agents, 9);
      int px = samePriority(got, x);
      int py = samePriority(got, y);
      assertTrue(px < py, "the earlier coflow first: X " + px + ", Y " + py);
      int pz = got.get(9L).getPriority();
      assertTrue(pz != px && pz != py, "Z is a coflow of its own: " + pz);

      // X finishes; a late flow of Y (same executor port, 300 ms after Y's) joins Y's coflow.
      for (int[] f : x) {
        agents.clients.get("h" + f[1]).finishFlow(f[0]);
      }
      agents.reportDark(10, "h3", "h1", T0 + 6000 + 300, 41001, size(10));
      // Six active flows is also the count while one of X's finishes is still on its way and the
      // late flow not yet in: wait for the flows themselves.
      Set<Long> xSizes = sizes(x);
      LoopbackCluster.await(
          "X gone and the late flow in",
          () -> {
            Map<String, Set<Long>> now = coflowsBySizes(master);
            return now.values().stream().noneMatch(s -> s.stream().anyMatch(xSizes::contains))
                && now.values().stream().anyMatch(s -> s.contains(size(10)));
          });
      assertEquals(6, master.activeFlows());
      Map<String, Set<Long>> after = coflowsBySizes(master);
      Set<Long> yPlus = new TreeSet<>(sizes(y));
      yPlus.add(size(10));
      assertTrue(after.containsValue(yPlus), "the late flow joined Y: " + after);
      assertEquals(2, after.size(), after.toString());
    }
  }

  private static long size(long id) {
    return 1_000_000L + id;
  }

  private static Set<Long> sizes(int[][] flows) {
    Set<Long> s = new TreeSet<>();
    for (int[] f : flows) {
      s.add(size(f[0]));
    }
    return s;
  }

  private static Map<String, Set<Long>> coflowsBySizes(MasterService master) {
    return master.inspectModel(
        m -> {
          Map<String, Set<Long>> out = new TreeMap<>();
          m.flows()
              .forEach(
                  f ->
                      out.computeIfAbsent(f.coflow().id(), k -> new TreeSet<>())
                          .add((long) f.size()));
          return out;
        });
  }

  /** Flow id → pushed schedule for flows 1..n, or null until every one was pushed. */
  private static Map<Long, FlowSchedule> pushed(LoopbackCluster agents, int n) {
    Map<Long, FlowSchedule> out = new TreeMap<>();
    for (var c : agents.clients.values()) {
      out.putAll(c.flowSchedules());
    }
    for (long id = 1; id <= n; id++) {
      if (!out.containsKey(id)) {
        return null;
      }
    }
    return out;
  }

  private static int samePriority(Map<Long, FlowSchedule> got, int[][] flows) {
    int p = got.get((long) flows[0][0]).getPriority();
    for (int[] f : flows) {
      assertEquals(
          p, got.get((long) f[0]).getPriority(), "flow " + f[0] + " has its coflow's priority");
    }
    return p;
  }
}
