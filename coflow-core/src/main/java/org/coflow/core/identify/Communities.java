package org.coflow.core.identify;

import java.util.HashMap;
import java.util.Map;

/**
 * Hosts grouped by who talks to whom (CODA's community attribute, seed 002 §3.1): two hosts are in
 * one community when a chain of flows connects them. The paper uses spectral clustering to cut the
 * traffic matrix into groups with little traffic between them; we take the connected components of
 * the talks-to graph instead: exact for disjoint groups of machines (tenants, the paper's testbed
 * of two 10-server communities), deterministic and O(α(n)) per flow, and, like the paper's,
 * uninformative on a fabric where everything talks to everything (its Facebook trace is "a unified
 * community"). A community's id is its smallest host id.
 */
public final class Communities {
  private final Map<Integer, Integer> parent = new HashMap<>();

  /** Records that {@code src} sent to {@code dst}. */
  public void observe(int src, int dst) {
    int a = root(src);
    int b = root(dst);
    if (a != b) {
      parent.put(Math.max(a, b), Math.min(a, b));
    }
  }

  /** The community of {@code host} (a host never seen is a community of its own). */
  public int of(int host) {
    return root(host);
  }

  private int root(int h) {
    parent.putIfAbsent(h, h);
    int r = h;
    while (parent.get(r) != r) {
      r = parent.get(r);
    }
    for (int x = h; x != r; ) {
      int next = parent.get(x);
      parent.put(x, r);
      x = next;
    }
    return r;
  }
}
