package org.coflow.core.policy;

import java.util.List;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Flow;

/**
 * Late binding's coflow extension (seed 002, Algorithm 2's CoflowExtension): for each coflow of the
 * model, the flows of <em>other</em> coflows that lie within the diameter {@code d} of it, so that
 * a flow on the boundary of two identified coflows is a candidate of both. Supplied by whoever
 * identified the coflows (it alone knows the flows' distances); {@link Coda} binds each such flow
 * to the highest-priority candidate that serves it.
 */
@FunctionalInterface
public interface CoflowExtension {
  /**
   * @param diameter d, in the identification metric's units
   * @return by coflow index ({@link org.coflow.core.model.Coflow#index()}), the extra flows of each
   *     coflow; null entries (or a null array) mean none
   */
  List<Flow>[] extend(ClusterState state, double diameter);
}
