package org.coflow.master.service;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.coflow.core.identify.CoflowIdentifier;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;
import org.coflow.core.model.Fabric;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.Coda;
import org.coflow.core.policy.SchedulingPolicy;

/**
 * Keeps the scheduling model ({@link ClusterState}) in step with the reported flows: hosts become
 * ports (the fabric grows as hosts appear, and a port whose host has no live session and no active
 * flow is freed for the next new host, so the fabric stays as large as the most hosts held at
 * once), coflows are admitted when their first flow arrives and leave with their last, reported
 * byte counters become the model's sent bytes.
 *
 * <p>Scheduling thread only.
 */
final class ModelSync {
  private final double defaultCapacity;
  private final CoflowIdentifier identifier;
  private final ClusterState state;
  private final Map<String, Integer> ports = new HashMap<>();

  /** Host of each port; null for a free port. */
  private final List<String> hosts = new ArrayList<>();

  /** Per port: active model flows that start or end there. */
  private int[] flowRefs = new int[0];

  /** Per port: a live session's host. */
  private boolean[] sessionHeld = new boolean[0];

  private final ArrayDeque<Integer> freePorts = new ArrayDeque<>();
  private double[] uplink = new double[0];
  private double[] downlink = new double[0];
  private boolean fabricStale;
  private final Map<String, Coflow> live = new HashMap<>();

  /** Bytes of registered pair sizes already given to flows, by coflow id and pair. */
  /** Per coflow and host pair, the registered bytes already handed to the pair's flows. */
  private final Map<String, Map<HostPair, Long>> pairAssigned = new HashMap<>();

  private Map<String, RegisteredCoflow> registered = Map.of();
  private final List<FlowRecord> active = new ArrayList<>();
  private long seq;
  private long nextHandle;
  private double[] sentBytes = new double[0];
  private double[] receivedBytes = new double[0];

  ModelSync(double defaultCapacity, CoflowIdentifier identifier) {
    this.defaultCapacity = defaultCapacity;
    this.identifier = identifier;
    this.state = new ClusterState(Fabric.uniform(1, defaultCapacity));
  }

  ClusterState state() {
    return state;
  }

  /**
   * Records whose flows are in the model, aligned with the model's flows: {@code
   * active().get(i).flow.index() == i} (both append new flows and move the last into a finished
   * flow's slot).
   */
  List<FlowRecord> active() {
    return active;
  }

  /** Host ids by port; null where a port is free. */
  List<String> hosts() {
    return hosts;
  }

  /** Port of {@code host}, or -1 if it was never seen. */
  int portOf(String host) {
    Integer p = ports.get(host);
    return p == null ? -1 : p;
  }

  RegisteredCoflow registration(String coflowId) {
    return registered.get(coflowId);
  }

  /** Bytes each port sent and received since the last call (the reported counters' growth). */
  double[][] takeTraffic() {
    double[][] t = {sentBytes, receivedBytes};
    sentBytes = new double[hosts.size()];
    receivedBytes = new double[hosts.size()];
    return t;
  }

  /**
   * The agents' declared capacities (0 = default) for their hosts' ports; where several sessions
   * share a host (shared-host sessions), the largest declared uplink and downlink.
   */
  void sessions(List<AgentSession> sessions) {
    Arrays.fill(sessionHeld, false);
    for (AgentSession s : sessions) {
      int p = port(s.hostId); // may grow sessionHeld: not inlined into the index
      sessionHeld[p] = true;
    }
    double[] declaredUp = new double[hosts.size()];
    double[] declaredDown = new double[hosts.size()];
    for (AgentSession s : sessions) {
      int p = ports.get(s.hostId);
      declaredUp[p] = Math.max(declaredUp[p], s.uplink);
      declaredDown[p] = Math.max(declaredDown[p], s.downlink);
    }
    for (int p = 0; p < declaredUp.length; p++) {
      if (!sessionHeld[p]) {
        continue;
      }
      double up = declaredUp[p] > 0 ? declaredUp[p] : defaultCapacity;
      double down = declaredDown[p] > 0 ? declaredDown[p] : defaultCapacity;
      if (uplink[p] != up || downlink[p] != down) {
        uplink[p] = up;
        downlink[p] = down;
        fabricStale = true;
      }
    }
  }

  void registrations(Map<String, RegisteredCoflow> coflows) {
    registered = coflows;
  }

  /**
   * Applies the round's changed records: new flows join the model, counters advance, ended flows
   * leave it.
   *
   * @param now the round's time on the scheduler's clock (seconds since the master started)
   * @param wallMillis the same instant in epoch milliseconds, for identification (flow start times
   *     are the agents' epoch clocks)
   * @param removed receives the records whose flows left the model
   */
  void apply(List<FlowRecord> changed, double now, long wallMillis, List<FlowRecord> removed) {
    List<FlowRecord> created = new ArrayList<>();
    for (FlowRecord r : changed) {
      if (r.flow == null) {
        // A flow retired when its reported bytes ran out comes back if its agent reports more to
        // come (a reducer asked for more blocks, or the sizes it was given were estimates).
        if (!r.viewEnded && (!r.retired || !r.unregistered && r.viewRemaining > 0)) {
          r.retired = false;
          created.add(r);
        }
        continue;
      }
      advance(r);
      if (r.viewRemaining > 0) {
        // Spark readers ask for blocks in waves and several reduce tasks add to one host pair's
        // flow: a size fixed at the first report ran out while bytes kept coming, and SEBF then
        // put half-done coflows first.
        state.growFlow(r.flow, (double) r.viewSent + r.viewRemaining);
      }
      if (r.viewEnded || r.flow.remaining() == 0 && r.viewRemaining == 0) {
        r.retired = !r.viewEnded;
        finish(r, now);
        removed.add(r);
      }
    }
    for (FlowRecord r : created) {
      port(r.srcHost);
      port(r.dstHost);
    }
    if (fabricStale) {
      state.setFabric(new Fabric(uplink, downlink));
      fabricStale = false;
    }
    List<CoflowIdentifier.Arrival> dark = new ArrayList<>();
    for (FlowRecord r : created) {
      // A record requeued after a failed round may still hold a handle: let it go first.
      forget(r);
      if (r.coflowId.isEmpty() && !(r.viewRemaining >= 0 && r.viewSent + r.viewRemaining == 0)) {
        r.identity = nextHandle++;
        dark.add(
            new CoflowIdentifier.Arrival(
                r.identity,
                r.session.hostId,
                r.flowId,
                r.srcHost,
                r.dstHost,
                r.startMillis,
                r.attributes));
      }
    }
    List<String> identified = dark.isEmpty() ? List.of() : identifier.identify(dark, wallMillis);
    int k = 0;
    for (FlowRecord r : created) {
      // An id-less flow with nothing to send is not identified (it would only perturb clusters);
      // admit() leaves it out like any empty flow.
      admit(r, now, r.identity >= 0 ? identified.get(k++) : r.coflowId);
    }
  }

  /**
   * Lets a CODA policy extend identified coflows (late binding) with the identifier's distances;
   * other policies are left alone.
   */
  void attach(SchedulingPolicy policy) {
    if (policy instanceof Coda coda) {
      coda.lateBinding(identifier.extension(f -> active.get(f.index()).identity));
    }
  }

  /** Drops every flow scheduled in one of {@code coflowIds} (unregistered coflows). */
  void drop(List<String> coflowIds, double now, List<FlowRecord> removed) {
    java.util.Set<String> ids = new java.util.HashSet<>(coflowIds);
    for (int i = active.size() - 1; i >= 0; i--) {
      FlowRecord r = active.get(i);
      if (ids.contains(r.assignedCoflow)) {
        r.retired = true;
        r.unregistered = true;
        finish(r, now);
        removed.add(r);
      }
    }
  }

  /**
   * Frees the ports whose hosts have no live session and no active flow. Call it after the round's
   * push: the push has then told every agent that its pairs to those hosts are gone, so a freed
   * port can take a new host in the next round.
   *
   * @return the ports freed
   */
  List<Integer> releaseUnused() {
    List<Integer> freed = new ArrayList<>();
    for (int p = 0; p < hosts.size(); p++) {
      String host = hosts.get(p);
      if (host != null && flowRefs[p] == 0 && !sessionHeld[p]) {
        ports.remove(host);
        hosts.set(p, null);
        freePorts.add(p);
        freed.add(p);
      }
    }
    return freed;
  }

  private void admit(FlowRecord r, double now, String coflowId) {
    double size = size(r, coflowId);
    if (size == 0) {
      forget(r);
      return;
    }
    Coflow c = live.get(coflowId);
    if (c == null) {
      RegisteredCoflow reg = registered.get(coflowId);
      c = new Coflow(coflowId, seq++, now, reg != null ? reg.weight : 1);
      state.addCoflow(c);
      live.put(coflowId, c);
    }
    r.assignedCoflow = coflowId;
    r.srcPort = ports.get(r.srcHost);
    r.dstPort = ports.get(r.dstHost);
    r.flow = state.addFlow(c, r.srcPort, r.dstPort, size, now);
    flowRefs[r.srcPort]++;
    flowRefs[r.dstPort]++;
    r.appliedSent = 0;
    advance(r);
    r.activePos = active.size();
    active.add(r);
  }

  /** Size of a new flow: reported, else from the coflow's registered pair size, else unknown. */
  private double size(FlowRecord r, String coflowId) {
    if (r.viewRemaining >= 0) {
      return (double) r.viewSent + r.viewRemaining;
    }
    RegisteredCoflow reg = registered.get(coflowId);
    HostPair key = new HostPair(r.srcHost, r.dstHost);
    Long pair = reg == null ? null : reg.pairSizes.get(key);
    if (pair == null) {
      return Flow.UNKNOWN;
    }
    Map<HostPair, Long> assigned = pairAssigned.computeIfAbsent(coflowId, k -> new HashMap<>());
    long left = pair - assigned.getOrDefault(key, 0L);
    if (left <= r.viewSent) {
      return Flow.UNKNOWN;
    }
    assigned.merge(key, left, Long::sum);
    return left;
  }

  private void advance(FlowRecord r) {
    long delta = r.viewSent - r.appliedSent;
    if (delta > 0) {
      state.addSent(r.flow, delta);
      r.appliedSent = r.viewSent;
      sentBytes[r.flow.src()] += delta;
      receivedBytes[r.flow.dst()] += delta;
    }
  }

  private void forget(FlowRecord r) {
    if (r.identity >= 0) {
      identifier.departed(r.identity);
      r.identity = -1;
    }
  }

  private void finish(FlowRecord r, double now) {
    forget(r);
    Coflow c = r.flow.coflow();
    flowRefs[r.flow.src()]--;
    flowRefs[r.flow.dst()]--;
    if (state.finishFlow(r.flow, now)) {
      live.remove(c.id());
      pairAssigned.remove(c.id());
    }
    r.flow = null;
    FlowRecord last = active.remove(active.size() - 1);
    if (last != r) {
      active.set(r.activePos, last);
      last.activePos = r.activePos;
    }
    r.activePos = -1;
  }

  private int port(String host) {
    Integer p = ports.get(host);
    if (p != null) {
      return p;
    }
    Integer free = freePorts.poll();
    if (free != null) {
      int q = free;
      ports.put(host, q);
      hosts.set(q, host);
      uplink[q] = defaultCapacity;
      downlink[q] = defaultCapacity;
      sentBytes[q] = 0;
      receivedBytes[q] = 0;
      fabricStale = true;
      return q;
    }
    int n = hosts.size();
    ports.put(host, n);
    hosts.add(host);
    uplink = Arrays.copyOf(uplink, n + 1);
    downlink = Arrays.copyOf(downlink, n + 1);
    uplink[n] = defaultCapacity;
    downlink[n] = defaultCapacity;
    sentBytes = Arrays.copyOf(sentBytes, n + 1);
    receivedBytes = Arrays.copyOf(receivedBytes, n + 1);
    flowRefs = Arrays.copyOf(flowRefs, n + 1);
    sessionHeld = Arrays.copyOf(sessionHeld, n + 1);
    fabricStale = true;
    return n;
  }
}
