package org.coflow.master.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.coflow.api.client.MasterClient;
import org.coflow.api.client.MasterClientOptions;
import org.coflow.api.proto.v1.FlowSchedule;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.core.config.Config;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.Schedule;

/**
 * Simulated agents ({@link MasterClient}s over loopback TCP) with static flows, and the check that
 * what they were pushed is what the policy computes on the same state directly.
 */
final class LoopbackCluster implements AutoCloseable {
  /** One reported flow; the sending host's agent reports it. */
  record TestFlow(long id, String coflow, String src, String dst, long sent, long size) {}

  final Map<String, MasterClient> clients = new LinkedHashMap<>();
  final List<TestFlow> flows = new ArrayList<>();

  LoopbackCluster(int port, double capacity, String... hosts) {
    for (String h : hosts) {
      MasterClient c =
          new MasterClient(
              new MasterClientOptions("127.0.0.1:" + port, h)
                  .addresses(h + ":7337", "BlockManagerId(" + h + ", 127.0.0.1)")
                  .capacity(capacity, capacity)
                  .backoff(20, 200),
              update -> {});
      clients.put(h, c);
      c.start();
    }
  }

  void report(TestFlow... fs) {
    for (TestFlow f : fs) {
      flows.add(f);
      clients
          .get(f.src())
          .updateFlow(
              f.id(),
              FlowSpec.newBuilder()
                  .setCoflowId(f.coflow())
                  .setSrcHost(f.src())
                  .setDstHost(f.dst())
                  .setStartTimeMs(1)
                  .build(),
              f.sent(),
              f.size() - f.sent());
    }
  }

  /**
   * Reports a flow without a coflow id (the master must identify it), with the attributes CODA
   * reads.
   */
  void reportDark(long id, String src, String dst, long startMillis, int dstPort, long size) {
    clients
        .get(src)
        .updateFlow(
            id,
            FlowSpec.newBuilder()
                .setSrcHost(src)
                .setDstHost(dst)
                .setStartTimeMs(startMillis)
                .putAttributes("dst_port", Integer.toString(dstPort))
                .putAttributes("src_port", Integer.toString(50000 + (int) id))
                .build(),
            0,
            size);
  }

  /**
   * Rebuilds the master's model independently from what it holds (hosts in port order, coflows and
   * flows in its order), checks it against what the agents reported, and runs a fresh policy on it.
   *
   * @return expected {rate, priority} per test flow
   */
  Map<TestFlow, double[]> expected(MasterService master, String policy, Config config) {
    MasterSnapshot snap = master.snapshot(0);
    Map<String, TestFlow> byKey = new HashMap<>();
    for (TestFlow f : flows) {
      byKey.put(f.coflow() + "|" + f.src() + "|" + f.dst(), f);
    }
    double[] up = snap.hosts().stream().mapToDouble(MasterSnapshot.Host::uplink).toArray();
    double[] down = snap.hosts().stream().mapToDouble(MasterSnapshot.Host::downlink).toArray();
    List<String> hosts = snap.hosts().stream().map(MasterSnapshot.Host::id).toList();
    record Row(String coflow, int src, int dst, double size, double sent) {}
    List<String> coflowOrder = new ArrayList<>();
    List<Row> rows =
        master.inspectModel(
            s -> {
              List<Row> out = new ArrayList<>();
              s.coflows().forEach(c -> coflowOrder.add(c.id()));
              for (Flow f : s.flows()) {
                out.add(new Row(f.coflow().id(), f.src(), f.dst(), f.size(), f.sent()));
              }
              return out;
            });
    assertEquals(flows.size(), rows.size(), "the master's model holds every reported flow");
    ClusterState state = new ClusterState(new Fabric(up, down));
    Map<String, Coflow> coflows = new HashMap<>();
    long seq = 0;
    for (String id : coflowOrder) {
      Coflow c = new Coflow(id, seq, seq, 1);
      seq++;
      state.addCoflow(c);
      coflows.put(id, c);
    }
    List<TestFlow> order = new ArrayList<>();
    for (Row r : rows) {
      TestFlow f = byKey.get(r.coflow() + "|" + hosts.get(r.src()) + "|" + hosts.get(r.dst()));
      assertNotNull(f, "the model holds a flow nobody reported: " + r);
      assertEquals(f.size(), r.size(), "size of " + f);
      assertEquals(f.sent(), r.sent(), "bytes sent of " + f);
      Flow flow = state.addFlow(coflows.get(f.coflow()), r.src(), r.dst(), f.size(), 0);
      state.addSent(flow, f.sent());
      order.add(f);
    }
    Schedule schedule = Policies.create(policy, config).schedule(state, 0);
    Map<TestFlow, double[]> expected = new HashMap<>();
    for (int i = 0; i < order.size(); i++) {
      expected.put(order.get(i), new double[] {schedule.rate(i), schedule.priority(i)});
    }
    return expected;
  }

  /** Null when every agent holds exactly {@code expected}; otherwise what differs. */
  String mismatch(Map<TestFlow, double[]> expected) {
    for (TestFlow f : flows) {
      FlowSchedule got = clients.get(f.src()).flowSchedules().get(f.id());
      double[] want = expected.get(f);
      if (got == null) {
        return f + ": no schedule entry yet";
      }
      if (Math.abs(got.getRateBytesPerSec() - want[0]) > 1e-9 * Math.max(1, want[0])
          || got.getPriority() != (int) want[1]) {
        return f
            + ": pushed rate "
            + got.getRateBytesPerSec()
            + " priority "
            + got.getPriority()
            + ", policy computes "
            + want[0]
            + " priority "
            + (int) want[1];
      }
    }
    return null;
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    await(what, condition, () -> "");
  }

  static void await(String what, BooleanSupplier condition, java.util.function.Supplier<String> why)
      throws InterruptedException {
    long deadline = System.nanoTime() + 15_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what + " " + why.get());
      }
      Thread.sleep(10);
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (MasterClient c : clients.values()) {
      c.close();
    }
  }
}
