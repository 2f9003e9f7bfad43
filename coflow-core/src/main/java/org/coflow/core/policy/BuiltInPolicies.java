package org.coflow.core.policy;

import java.util.List;
import org.coflow.core.config.Config;

/** The policies this project ships, with their parameters from {@link PolicyConfig}. */
public final class BuiltInPolicies implements PolicyProvider {
  @Override
  public List<String> names() {
    return List.of("fair", "aalo", "varys", "sincronia", "graviton", "baraat", "creek", "coda");
  }

  @Override
  public SchedulingPolicy create(String name, Config config) {
    double delta = config.get(PolicyConfig.DELTA_MS) / 1000.0;
    int queues = config.get(PolicyConfig.DCLAS_QUEUES);
    double first = config.get(PolicyConfig.DCLAS_FIRST);
    double mult = config.get(PolicyConfig.DCLAS_MULTIPLIER);
    switch (name) {
      case "fair":
        return new FairSharing();
      case "aalo":
        return new Aalo(
            queues,
            first,
            mult,
            config.get(PolicyConfig.AALO_INTER_QUEUE).equals("weighted"),
            delta);
      case "varys":
        return new Varys();
      case "sincronia":
        return new Sincronia();
      case "graviton":
        return new Graviton(
            config.get(PolicyConfig.GRAVITON_QUEUES),
            first,
            mult,
            config.get(PolicyConfig.GRAVITON_STARVATION_MS) / 1000.0,
            delta);
      case "baraat":
        return new Baraat(
            config.get(PolicyConfig.BARAAT_PERCENTILE),
            config.get(PolicyConfig.BARAAT_MIN_HISTORY),
            config.get(PolicyConfig.BARAAT_INITIAL));
      case "creek":
        return new Creek(
            config.get(PolicyConfig.CREEK_LEVELS),
            config.get(PolicyConfig.CREEK_FIRST),
            config.get(PolicyConfig.CREEK_MULTIPLIER),
            config.get(PolicyConfig.CREEK_STARVATION_MS) / 1000.0,
            delta);
      case "coda":
        return new Coda(
            queues,
            first,
            mult,
            delta,
            config.get(PolicyConfig.CODA_FLOW_QUEUES),
            config.get(PolicyConfig.CODA_FLOW_FIRST),
            config.get(PolicyConfig.CODA_FLOW_MULTIPLIER),
            config.get(PolicyConfig.CODA_LATE_BINDING));
      default:
        throw new IllegalArgumentException("not a built-in policy: '" + name + "'");
    }
  }
}
