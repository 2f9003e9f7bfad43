package org.coflow.core.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.coflow.core.config.Config;

/**
 * Creates policies by the names users type, from every {@link PolicyProvider} on the class path:
 * the built-in ones first, in their order, then the others by provider class name.
 */
public final class Policies {
  private static final Map<String, PolicyProvider> PROVIDERS = load();

  /** Every policy name, in the order reports list them (the baseline first). */
  public static final List<String> NAMES = List.copyOf(PROVIDERS.keySet());

  private Policies() {}

  /**
   * @throws IllegalArgumentException for an unknown name, listing the valid ones
   */
  public static SchedulingPolicy create(String name, Config config) {
    PolicyProvider provider = PROVIDERS.get(name);
    if (provider == null) {
      throw new IllegalArgumentException(
          "unknown policy '" + name + "'; valid policies: " + String.join(", ", NAMES));
    }
    return provider.create(name, config);
  }

  private static Map<String, PolicyProvider> load() {
    List<PolicyProvider> found = new ArrayList<>();
    for (PolicyProvider p :
        ServiceLoader.load(PolicyProvider.class, Policies.class.getClassLoader())) {
      found.add(p);
    }
    found.sort(
        Comparator.comparing((PolicyProvider p) -> !(p instanceof BuiltInPolicies))
            .thenComparing(p -> p.getClass().getName()));
    if (found.isEmpty() || !(found.get(0) instanceof BuiltInPolicies)) {
      // Not found through the services file (a class path that dropped META-INF): still serve the
      // built-in ones.
      found.add(0, new BuiltInPolicies());
    }
    Map<String, PolicyProvider> byName = new LinkedHashMap<>();
    for (PolicyProvider p : found) {
      for (String name : p.names()) {
        PolicyProvider before = byName.putIfAbsent(name, p);
        if (before != null && before != p) {
          throw new IllegalStateException(
              "two policy providers make '"
                  + name
                  + "': "
                  + before.getClass().getName()
                  + " and "
                  + p.getClass().getName()
                  + "; remove one of them from the class path");
        }
      }
    }
    return Collections.unmodifiableMap(byName);
  }
}
