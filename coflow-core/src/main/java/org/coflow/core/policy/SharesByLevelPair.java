package org.coflow.core.policy;

/**
 * Declared by a policy that gives every flow of one priority level on one (sender, receiver) pair
 * the same rate, whatever its coflow (Creek): a replay may then move such a group's flows as one
 * object, reading the levels and rates of each decision from {@link #groups}.
 */
public interface SharesByLevelPair {
  /**
   * From now on, each decision's levels and rates by (level, sender, receiver) group, read from the
   * returned view; the decisions leave those flows without a rate of their own.
   */
  CreekGroups groups();

  /** The largest fabric whose pair counts the policy keeps; larger ones need a per-flow replay. */
  int maxCountedPorts();
}
