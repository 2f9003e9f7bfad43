package org.coflow.core.policy;

import java.util.List;
import org.coflow.core.config.Config;

/**
 * Makes scheduling policies by the names users type. Providers are found with {@link
 * java.util.ServiceLoader}: a policy kept in a jar of its own lists its provider in {@code
 * META-INF/services/org.coflow.core.policy.PolicyProvider}, and {@code bin/coflow sim} and the
 * master then run it by name without any list of ours being edited (docs/writing-a-policy.md).
 */
public interface PolicyProvider {
  /** The names this provider makes, in the order reports list them. */
  List<String> names();

  /**
   * A new policy called {@code name}, one of {@link #names()}, its parameters read from {@code
   * config} (keys of a {@link org.coflow.core.config.ConfigRegistry}, so {@code --conf} and the
   * generated configuration reference know them).
   */
  SchedulingPolicy create(String name, Config config);
}
