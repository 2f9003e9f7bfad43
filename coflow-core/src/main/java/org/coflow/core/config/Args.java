package org.coflow.core.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A small command-line parser: {@code --name value}, {@code --name=value} and {@code --flag}.
 * Options not in the declared set are rejected with the list of valid ones.
 */
public final class Args {
  private final Map<String, List<String>> values = new LinkedHashMap<>();

  public static Args parse(String command, String[] argv, Set<String> withValue, Set<String> flags)
      throws UsageException {
    Args a = new Args();
    for (int i = 0; i < argv.length; i++) {
      String arg = argv[i];
      if (!arg.startsWith("--")) {
        throw new UsageException(
            command + ": unexpected argument '" + arg + "'; see '" + command + " --help'");
      }
      String name = arg.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (flags.contains(name)) {
        if (value != null) {
          throw new UsageException(command + ": --" + name + " takes no value");
        }
        value = "true";
      } else if (withValue.contains(name)) {
        if (value == null) {
          if (i + 1 >= argv.length) {
            throw new UsageException(command + ": --" + name + " needs a value");
          }
          value = argv[++i];
        }
      } else {
        List<String> valid = new ArrayList<>();
        withValue.forEach(n -> valid.add("--" + n));
        flags.forEach(n -> valid.add("--" + n));
        valid.sort(null);
        throw new UsageException(
            command
                + ": unknown option '--"
                + name
                + "'; valid options: "
                + String.join(", ", valid));
      }
      a.values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
    }
    return a;
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  public String get(String name, String fallback) {
    List<String> v = values.get(name);
    return v == null ? fallback : v.get(v.size() - 1);
  }

  public List<String> all(String name) {
    return values.getOrDefault(name, List.of());
  }
}
