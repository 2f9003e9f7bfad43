package org.coflow.core.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/** Renders registries as the Markdown of {@code docs/configuration.md}. */
public final class ConfigDocs {
  private ConfigDocs() {}

  /**
   * Every registry announced by a {@link ConfigRegistry.Provider} on the class path, by component.
   */
  public static List<ConfigRegistry> discover() {
    List<ConfigRegistry> all = new ArrayList<>();
    for (ConfigRegistry.Provider p : ServiceLoader.load(ConfigRegistry.Provider.class)) {
      all.addAll(p.registries());
    }
    all.sort(Comparator.comparing(ConfigRegistry::component));
    return all;
  }

  public static String render(List<ConfigRegistry> registries) {
    StringBuilder sb = new StringBuilder();
    sb.append("# Configuration\n\n");
    sb.append(
        "Generated from the typed configuration registries in the code; do not edit by hand.\n");
    sb.append("A test fails when this file is stale; regenerate it with `bin/coflow docs`.\n");
    sb.append(
        "Byte counts take binary suffixes (`64k`, `4m`); bit rates decimal ones (`1g` = 10^9 bit/s);\n");
    sb.append("durations `ms` or `s`.\n");
    for (ConfigRegistry r : registries) {
      sb.append("\n## ").append(r.component()).append("\n\n");
      sb.append(r.description()).append("\n\n");
      sb.append("| key | type | default | since | meaning |\n");
      sb.append("|---|---|---|---|---|\n");
      for (ConfigKey<?> k : r.keys()) {
        sb.append("| `")
            .append(k.key())
            .append("` | ")
            .append(k.type().name())
            .append(" | ")
            .append(formatDefault(k))
            .append(" | ")
            .append(k.since())
            .append(" | ")
            .append(escape(k.doc()));
        if (!k.checkDoc().isEmpty()) {
          sb.append(" Must be ").append(escape(k.checkDoc())).append('.');
        }
        sb.append(" |\n");
      }
    }
    return sb.toString();
  }

  private static <T> String formatDefault(ConfigKey<T> k) {
    return k.defaultValue() == null ? "(none)" : "`" + k.type().format(k.defaultValue()) + "`";
  }

  private static String escape(String s) {
    return s.replace("|", "\\|").replace("\n", " ");
  }
}
