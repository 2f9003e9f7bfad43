package org.coflow.core.policy;

import java.util.List;
import org.coflow.core.config.ConfigKey;
import org.coflow.core.config.ConfigRegistry;
import org.coflow.core.config.ConfigType;

/** Configuration keys of the scheduling policies, shared by the live master and the simulator. */
public final class PolicyConfig implements ConfigRegistry.Provider {
  public static final ConfigRegistry REGISTRY =
      new ConfigRegistry(
          "Scheduling policies",
          "Parameters of the coflow scheduling policies (`coflow.policy.*`), read by the master and by "
              + "`bin/coflow sim`. Defaults follow the papers where they give a value; where they do not, "
              + "the policy class documents the choice.");

  private static final String V = "0.1.0";

  public static final ConfigKey<Long> DELTA_MS =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.delta", ConfigType.DURATION_MS)
              .defaultValue(100L)
              .doc(
                  "Coordination interval Δ: how often the master learns the bytes sent by every coflow and "
                      + "re-evaluates queue membership (Aalo, Graviton, CODA) and Creek's shared byte store. "
                      + "0 means instant knowledge.")
              .check(v -> v >= 0, "zero or more")
              .since(V)
              .build());

  public static final ConfigKey<Integer> DCLAS_QUEUES =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.dclas.queues", ConfigType.INT)
              .defaultValue(10)
              .doc("Number of D-CLAS coflow queues (Aalo, CODA).")
              .check(v -> v >= 1 && v <= 64, "between 1 and 64")
              .since(V)
              .build());

  public static final ConfigKey<Long> DCLAS_FIRST =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.dclas.firstThreshold", ConfigType.BYTES)
              .defaultValue(10L << 20)
              .doc(
                  "Bytes a coflow may send before leaving the first D-CLAS queue (Aalo, Graviton, CODA).")
              .check(v -> v > 0, "positive")
              .since(V)
              .build());

  public static final ConfigKey<Double> DCLAS_MULTIPLIER =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.dclas.multiplier", ConfigType.DOUBLE)
              .defaultValue(10.0)
              .doc("Ratio between consecutive D-CLAS queue thresholds (Aalo's E).")
              .check(v -> v > 1, "greater than 1")
              .since(V)
              .build());

  public static final ConfigKey<String> AALO_INTER_QUEUE =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.aalo.interQueue", ConfigType.oneOf("strict", "weighted"))
              .defaultValue("strict")
              .doc(
                  "How Aalo shares a port among its queues: strict priority (the reference "
                      + "implementations) or weighted by K - q (starvation-free).")
              .since(V)
              .build());

  public static final ConfigKey<Integer> GRAVITON_QUEUES =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.graviton.queues", ConfigType.INT)
              .defaultValue(7)
              .doc("Number of Graviton queues (10 MiB to 10 TiB at x10 gives 7).")
              .check(v -> v >= 4 && v <= 64, "between 4 and 64")
              .since(V)
              .build());

  public static final ConfigKey<Long> GRAVITON_STARVATION_MS =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.graviton.starvation", ConfigType.DURATION_MS)
              .defaultValue(10_000L)
              .doc(
                  "Graviton-SF: a coflow that has had no bandwidth for this long is served first for one Δ. "
                      + "0 disables starvation freedom.")
              .check(v -> v >= 0, "zero or more")
              .since(V)
              .build());

  public static final ConfigKey<Double> BARAAT_PERCENTILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.baraat.percentile", ConfigType.DOUBLE)
              .defaultValue(0.8)
              .doc(
                  "Baraat: the heavy-task threshold is this percentile of the sizes of completed coflows.")
              .check(v -> v > 0 && v < 1, "between 0 and 1 (exclusive)")
              .since(V)
              .build());

  public static final ConfigKey<Integer> BARAAT_MIN_HISTORY =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.baraat.minHistory", ConfigType.INT)
              .defaultValue(10)
              .doc("Baraat: completed coflows needed before the threshold is learned from history.")
              .check(v -> v >= 1, "at least 1")
              .since(V)
              .build());

  public static final ConfigKey<Long> BARAAT_INITIAL =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.baraat.initialThreshold", ConfigType.BYTES)
              .defaultValue(100L << 20)
              .doc("Baraat: heavy-task threshold used until enough history exists.")
              .check(v -> v > 0, "positive")
              .since(V)
              .build());

  public static final ConfigKey<Integer> CREEK_LEVELS =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.creek.levels", ConfigType.INT)
              .defaultValue(8)
              .doc("Creek: number of priority levels (commodity switches offer at most 8).")
              .check(v -> v >= 1 && v <= 8, "between 1 and 8")
              .since(V)
              .build());

  public static final ConfigKey<Long> CREEK_FIRST =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.creek.firstThreshold", ConfigType.BYTES)
              .defaultValue(10L << 20)
              .doc("Creek: bytes received before a coflow leaves the first level.")
              .check(v -> v > 0, "positive")
              .since(V)
              .build());

  public static final ConfigKey<Double> CREEK_MULTIPLIER =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.creek.multiplier", ConfigType.DOUBLE)
              .defaultValue(10.0)
              .doc("Creek: ratio between consecutive level thresholds.")
              .check(v -> v > 1, "greater than 1")
              .since(V)
              .build());

  public static final ConfigKey<Long> CREEK_STARVATION_MS =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.creek.starvation", ConfigType.DURATION_MS)
              .defaultValue(200L)
              .doc(
                  "Creek: a receiver's sub-coflow without bandwidth for this long is raised one level for "
                      + "as long. 0 disables starvation mitigation.")
              .check(v -> v >= 0, "zero or more")
              .since(V)
              .build());

  public static final ConfigKey<Integer> CODA_FLOW_QUEUES =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.coda.flowQueues", ConfigType.INT)
              .defaultValue(5)
              .doc("CODA: number of intra-coflow flow queues (smallest-first by bytes sent).")
              .check(v -> v >= 1 && v <= 64, "between 1 and 64")
              .since(V)
              .build());

  public static final ConfigKey<Long> CODA_FLOW_FIRST =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.coda.flowFirstThreshold", ConfigType.BYTES)
              .defaultValue(1L << 20)
              .doc("CODA: bytes a flow may send before leaving the first flow queue.")
              .check(v -> v > 0, "positive")
              .since(V)
              .build());

  public static final ConfigKey<Double> CODA_FLOW_MULTIPLIER =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.coda.flowMultiplier", ConfigType.DOUBLE)
              .defaultValue(10.0)
              .doc("CODA: ratio between consecutive flow-queue thresholds.")
              .check(v -> v > 1, "greater than 1")
              .since(V)
              .build());

  public static final ConfigKey<Double> CODA_LATE_BINDING =
      REGISTRY.add(
          ConfigKey.builder("coflow.policy.coda.lateBinding", ConfigType.DOUBLE)
              .defaultValue(2.0)
              .doc(
                  "CODA: late binding's diameter d, in the identification metric's units (ε is "
                      + "`coflow.master.identify.eps`): each identified coflow is extended by the flows within "
                      + "d of it, and a flow in several extended coflows is bound to the highest-priority one "
                      + "that serves it. 0 turns late binding off. Acts only on coflows the master identified.")
              .check(v -> v >= 0 && v < 1e6, "between 0 and 1e6")
              .since(V)
              .build());

  @Override
  public List<ConfigRegistry> registries() {
    return List.of(REGISTRY);
  }
}
