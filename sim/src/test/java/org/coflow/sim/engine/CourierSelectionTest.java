package org.coflow.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.coflow.core.config.Config;
import org.coflow.core.merge.Connection;
import org.coflow.core.merge.FlowDemand;
import org.coflow.core.merge.Merge;
import org.coflow.core.merge.SelectAndSplit;
import org.coflow.core.merge.UnifiedFlow;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.ForwardingPolicy;
import org.coflow.core.policy.Policies;
import org.coflow.core.policy.Schedule;
import org.coflow.core.policy.SchedulingPolicy;
import org.coflow.sim.trace.Trace;
import org.coflow.sim.trace.TraceParser;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The simulator's Courier ({@link CourierPolicy#connect}) gives a connection to exactly the flows
 * the agents' own {@link Merge} and {@link SelectAndSplit} carry, at every decision of a RATE and
 * an ORDER policy on the first coflows of the Facebook trace, with MaxNum small enough that most
 * receivers have peers waiting.
 */
class CourierSelectionTest {

  @ParameterizedTest
  @CsvSource({"aalo, 2, 20", "varys, 1, 20", "sincronia, 2, 10", "sincronia, 8, 10"})
  void connectsTheFlowsTheAgentsMergeAndSelectCarry(String name, int maxNum, int coflows)
      throws Exception {
    Trace trace =
        TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt")).first(coflows);
    SchedulingPolicy inner = Policies.create(name, Config.defaults());
    CourierPolicy courier = new CourierPolicy(inner, maxNum, 4 << 20);
    Checked checked = new Checked(inner, courier, maxNum);
    new Simulator(trace, 125_000_000, Simulator.DEFAULT_COALESCE)
        .run(checked, false, null, ProgressListener.NONE);
    assertTrue(checked.decisions > 100, "too few decisions compared: " + checked.decisions);
    assertTrue(
        checked.waiting > 0, "MaxNum never left a flow without a connection: nothing was compared");
  }

  /** The inner policy, with both selections compared at every decision it makes. */
  private static final class Checked extends ForwardingPolicy {
    final CourierPolicy courier;
    final int maxNum;
    int decisions;
    long waiting;

    Checked(SchedulingPolicy inner, CourierPolicy courier, int maxNum) {
      super(inner);
      this.courier = courier;
      this.maxNum = maxNum;
    }

    @Override
    public Schedule schedule(ClusterState state, double now) {
      Schedule decided = inner.schedule(state, now);
      int n = decided.orderSize();
      int[] order = new int[n];
      int[] classes = new int[n];
      int[] at = {0};
      decided.forEachInOrder(i -> order[at[0]++] = i);
      for (int k = 0; k < n; k++) {
        classes[k] = decided.priority(order[k]);
      }
      boolean[] fast = courier.connect(state, decided, order, classes, n);
      boolean[] agents = byAgents(state, decided, order);
      for (int k = 0; k < n; k++) {
        int i = order[k];
        assertEquals(
            agents[i],
            fast[i],
            name() + " at t=" + now + ": " + state.flows().get(i) + " connected?");
        if (!agents[i]) {
          waiting++;
        }
      }
      decisions++;
      return decided;
    }

    /** What every receiving host's agent connects: Alg. 2 and 3 on one demand per flow. */
    private boolean[] byAgents(ClusterState state, Schedule decided, int[] order) {
      int ports = state.fabric().size();
      List<List<FlowDemand<Flow>>> byReceiver = new ArrayList<>();
      for (int p = 0; p < ports; p++) {
        byReceiver.add(new ArrayList<>());
      }
      for (int i : order) {
        Flow f = state.flows().get(i);
        byReceiver
            .get(f.dst())
            .add(
                new FlowDemand<>(
                    f, f.src(), f.dst(), f.remaining(), decided.rate(i), decided.priority(i)));
      }
      boolean[] connected = new boolean[state.flows().size()];
      for (List<FlowDemand<Flow>> demands : byReceiver) {
        List<UnifiedFlow<Flow>> unified = Merge.merge(demands, type());
        for (Connection<Flow> c :
            SelectAndSplit.select(unified, type(), maxNum, courier.minSize())) {
          for (FlowDemand<Flow> d : c.flow().carried()) {
            connected[d.key().index()] = true;
          }
        }
      }
      return connected;
    }
  }
}
