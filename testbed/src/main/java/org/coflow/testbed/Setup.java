package org.coflow.testbed;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One configuration a testbed run compares: the baseline without agents (each reducer its own
 * connections to every map host, Hadoop's way), or Courier agents on every host under a policy,
 * with their unified connections ({@code merge}) or with a connection per flow, and a fixed or
 * adaptive connection budget.
 *
 * @param policy the master's policy; {@link #NO_MASTER} for agents without a master (each agent's
 *     own fair sharing: blocks of all coflows take turns chunk by chunk); null for the baseline
 * @param maxNum the agents' budget (ignored by the baseline); 0: unbounded
 * @param adaptive whether the agents adapt their budget from {@code maxNum}
 */
public record Setup(String policy, boolean merge, int maxNum, boolean adaptive) {

  /** The policy name of agents that run without a master. */
  public static final String NO_MASTER = "none";

  /** An unbounded budget: as many connections as flows (what "without merging" runs with). */
  static final int UNBOUNDED = 1 << 20;

  public static Setup baseline() {
    return new Setup(null, false, 0, false);
  }

  public static Setup courier(String policy, int maxNum) {
    return new Setup(policy, true, maxNum, false);
  }

  public static Setup adaptive(String policy, int startMaxNum) {
    return new Setup(policy, true, startMaxNum, true);
  }

  /** The same policy without merging: a connection per flow, the budget unbounded. */
  public static Setup withoutMerging(String policy) {
    return new Setup(policy, false, 0, false);
  }

  public boolean isBaseline() {
    return policy == null;
  }

  /** Whether the agents run with a master (and its policy). */
  public boolean hasMaster() {
    return policy != null && !policy.equals(NO_MASTER);
  }

  /** A short name for tables and files: {@code baseline}, {@code courier+aalo}, ... */
  public String label() {
    if (isBaseline()) {
      return "baseline";
    }
    String p = hasMaster() ? "+" + policy : "";
    if (!merge) {
      return "unmerged" + p;
    }
    return "courier" + p + (adaptive ? "/adaptive" : maxNum != 8 ? "/maxnum=" + maxNum : "");
  }

  /** The agents' settings ({@code coflow.courier.*}) this setup runs them with. */
  Map<String, String> agentSettings(String master, String secretFile) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("coflow.courier.master", hasMaster() ? master : "");
    s.put("coflow.courier.secretFile", secretFile);
    s.put("coflow.courier.merge", Boolean.toString(merge));
    s.put("coflow.courier.maxNum", Integer.toString(maxNum > 0 ? maxNum : UNBOUNDED));
    if (!merge) {
      // One connection per flow: never split a flow over more.
      s.put("coflow.courier.minSize", Long.toString(Long.MAX_VALUE / 2));
    }
    if (adaptive) {
      s.put("coflow.courier.maxNum.adaptive", "true");
    }
    return s;
  }

  static List<String> asArgs(Map<String, String> settings) {
    List<String> out = new ArrayList<>();
    settings.forEach((k, v) -> out.add(k + "=" + v));
    return out;
  }
}
