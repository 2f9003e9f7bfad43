package org.coflow.sim.engine;

import java.util.Arrays;
import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Creek;
import org.coflow.core.policy.CreekGroups;
import org.coflow.core.policy.Schedule;
import org.coflow.core.policy.SharesByLevelPair;
import org.coflow.sim.trace.TraceCoflow;

/**
 * The event loop's engine for {@link Creek} ({@link SharesByLevelPair}), run on (level, sender,
 * receiver) groups instead of flows.
 *
 * <p>Creek serves levels in strict priority and water-fills each level, so every flow of one level
 * on one (sender, receiver) pair gets the same rate, whatever its coflow ({@link Creek#groups}).
 * Such a group is simulated as one object, as {@link PairSimulator} does for fair sharing: it
 * counts the bytes each of its flows has been served since it was last idle ({@code service}), a
 * flow that joined it when that count was {@code s} with {@code b} bytes left finishes when it
 * reaches {@code s + b}, and each group keeps those thresholds in a heap. A flow changes group when
 * its (coflow, receiver) changes level, taking the bytes it has left with it. The bytes a coflow
 * receives are counted per (coflow, receiver), from the rate Creek gives it, which is what Creek's
 * levels read; a flow's own count is settled as it finishes. An event costs the active groups, the
 * active (coflow, receiver)s, the flows that change level or finish, and Creek's decision, not a
 * pass over the active flows.
 *
 * <p>It follows the per-flow loop's rules (events at arrivals, completions and Creek's decision
 * times; the completion window; a flow finishing once what it has left is within a nanosecond of
 * service or a billionth of its size). Bytes are counted per group and per (coflow, receiver)
 * rather than per flow, so completion times may differ from the per-flow loop's in the last digits
 * ({@code SimulatorDifferentialTest} bounds the difference).
 */
final class LevelPairSimulator extends EventLoop {
  /**
   * The active groups, by Creek's key of (level, sender, receiver) ({@link CreekGroups#key}), and
   * their flows.
   */
  private final ServiceGroups groups;

  /** Per flow, by id (the state numbers flows from 0 in admission order). */
  private Flow[] flow = new Flow[1024];

  /** Per (coflow number * ports + receiver): the level its flows' groups are at, -1 for none. */
  private final int[] placedAt;

  private final Finishing finishing = new Finishing();
  private CreekGroups view;
  private Schedule schedule;

  LevelPairSimulator(
      List<TraceCoflow> coflows, int ports, double bandwidth, double coalesce, Model model) {
    super(coflows, ports, bandwidth, coalesce, model);
    this.groups = new ServiceGroups(Creek.MAX_LEVELS * ports * ports);
    this.placedAt = new int[coflows.size() * ports];
    Arrays.fill(placedAt, -1);
  }

  @Override
  void start() {
    this.view = ((SharesByLevelPair) policy).groups();
    policy.movesAsDecided();
  }

  @Override
  double decide(double now, double untilArrival) {
    schedule = policy.schedule(state, now);
    if (view.perFlow()) {
      throw new IllegalStateException(
          "creek at t="
              + now
              + "s left capacity at both ends of a flow, which its levels' water-filling never"
              + " does: the groups do not describe this decision");
    }
    events++;
    place(state, view);
    double dt = untilArrival;
    double decision = policy.nextDecisionTime(state, schedule, now);
    if (decision < now + dt) {
      dt = Math.max(decision - now, FluidStep.SECONDS);
    }
    // The groups' keys are those of Creek's rates (place).
    ServiceGroups g = groups;
    g.startRates(dt, coalesce);
    g.rateByKey(view.rates());
    if (checker != null) {
      checker.checkPairs(
          state.fabric(), g.src, g.dst, g.count, g.rate, g.active, now, policy.name());
    }
    dt = g.until();
    if (dt == Double.POSITIVE_INFINITY) {
      throw Simulator.stalled(policy.name(), now, state.flows().size());
    }
    return dt;
  }

  @Override
  void advance(double now, double dt, double end, Finished finished) {
    // The bytes of the event per (coflow, receiver), at the rate its groups give it.
    for (Coflow c : state.coflows()) {
      for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
        int r = c.receiver(rs);
        double to = view.rateTo(c, r);
        if (to > 0) {
          state.addReceived(c, r, to * dt);
        }
      }
    }
    // Serve every group for dt; take out the flows that finish within it.
    finishing.start(dt);
    groups.serve(dt, finishing);
    // Flows leave in id order, as in the per-flow loop. A flow that finished before the end of
    // dt idled for the rest of it: the bytes counted for that part are taken back.
    int done = finishing.size;
    int[] ids = finishing.flows;
    Arrays.sort(ids, 0, done);
    for (int k = 0; k < done; k++) {
      Flow f = flow[ids[k]];
      flow[ids[k]] = null;
      state.addReceived(f.coflow(), f.dst(), finishing.idle[ids[k]]);
      state.settleSent(f.index(), f.size() - state.sentAt(f.index()));
      if (state.finishFlow(f, end)) {
        finished.coflow((int) f.coflow().seq(), f.coflow().bytesSent());
      }
    }
    groups.deactivateIdle();
    policy.recycle(schedule);
  }

  /**
   * The flows that finish in the event under way, and by flow id, the bytes counted for them past
   * their end (what they had left, less what their rate moves in the event: zero or below).
   */
  private final class Finishing implements ServiceGroups.Finished {
    int[] flows = new int[64];
    double[] idle = new double[1024];
    int size;
    private double dt;

    void start(double eventLength) {
      dt = eventLength;
      size = 0;
      if (idle.length < flow.length) {
        idle = new double[flow.length];
      }
    }

    @Override
    public void finished(int group, int f, double left) {
      if (size == flows.length) {
        flows = Arrays.copyOf(flows, 2 * size);
      }
      flows[size++] = f;
      idle[f] = left - groups.rate[group] * dt;
    }
  }

  /**
   * Puts the flows of every (coflow, receiver) whose level changed, or that has none yet, into the
   * groups of their new level, with the bytes they have left.
   */
  private void place(ClusterState state, CreekGroups view) {
    List<Flow> active = state.flows();
    for (Coflow c : state.coflows()) {
      int base = (int) c.seq() * ports;
      for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
        int r = c.receiver(rs);
        if (c.activeFlowsTo(r) == 0) {
          continue;
        }
        int k = view.levelOf(c, r);
        if (placedAt[base + r] == k) {
          continue;
        }
        placedAt[base + r] = k;
        int[] positions = c.activePositionsTo(r);
        for (int p = 0, m = c.activeFlowsTo(r); p < m; p++) {
          int at = positions[p];
          int f = (int) active.get(c.activeIndex(at)).id();
          int src = c.activeSrc(at);
          double left = groups.leave(f);
          groups.join(groups.slot(view.key(k, src, r), src, r), f, left);
        }
      }
    }
    groups.deactivateIdle();
  }

  /** Admits a trace coflow into the state and numbers its flows for the groups. */
  @Override
  void admit(TraceCoflow tc, int seq, double now) {
    for (Flow f : Simulator.admit(state, tc, seq, now).activeFlows()) {
      int id = (int) f.id();
      if (id >= flow.length) {
        flow = Arrays.copyOf(flow, Math.max(id + 1, 2 * flow.length));
      }
      flow[id] = f;
      groups.addFlow(id, f.size());
    }
  }
}
