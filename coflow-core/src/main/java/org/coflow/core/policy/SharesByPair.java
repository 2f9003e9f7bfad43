package org.coflow.core.policy;

import org.coflow.core.model.Fabric;

/**
 * Declared by a policy that gives every active flow on one (sender, receiver) pair the same rate,
 * whatever its coflow (per-flow fair sharing): a replay may then move a pair's flows as one object,
 * with the policy's own water-filling kept up to date per pair rather than per flow.
 */
public interface SharesByPair {
  /**
   * The policy's water-filling on {@code fabric} by pair, as its per-flow schedule computes it; the
   * caller adds and removes flows on it as they come and go.
   */
  PairShares pairShares(Fabric fabric);
}
