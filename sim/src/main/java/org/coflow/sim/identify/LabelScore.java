package org.coflow.sim.identify;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import org.coflow.core.identify.Accuracy;
import org.coflow.core.identify.CoflowIdentifier;
import org.coflow.core.model.Flow;
import org.coflow.core.policy.CoflowExtension;

/**
 * Scores a master's identification on real flows: wraps the identifier the master runs, passes
 * every call through unchanged, and keeps, for each flow it identified, the coflow it found and the
 * true coflow the coda-agent read from the engine's own messages (the {@value #LABEL} attribute,
 * which the wrapped identifier never gets to see: it is removed from the arrivals it is handed).
 * Flows without a label are not scored.
 */
public final class LabelScore implements CoflowIdentifier {
  /** The attribute the coda-agent puts the engine's label in. */
  public static final String LABEL = "label.coflow";

  private final CoflowIdentifier delegate;
  private final Map<Long, String> found = new HashMap<>();
  private final Map<Long, String> truth = new HashMap<>();
  private final List<Line> lines = new ArrayList<>();

  /** What {@link #describe} says of one labelled flow. */
  private record Line(long start, long handle, String text) {}

  public LabelScore(CoflowIdentifier delegate) {
    this.delegate = delegate;
  }

  @Override
  public List<String> identify(List<Arrival> arrivals, long roundMillis) {
    List<Arrival> blind = new ArrayList<>(arrivals.size());
    for (Arrival a : arrivals) {
      Map<String, String> attrs = new HashMap<>(a.attributes());
      attrs.remove(LABEL);
      blind.add(
          new Arrival(
              a.handle(),
              a.reporter(),
              a.flowId(),
              a.srcHost(),
              a.dstHost(),
              a.startMillis(),
              attrs));
    }
    List<String> ids = delegate.identify(blind, roundMillis);
    synchronized (this) {
      for (int i = 0; i < arrivals.size(); i++) {
        String label = arrivals.get(i).attributes().get(LABEL);
        if (label != null) {
          found.put(arrivals.get(i).handle(), ids.get(i));
          truth.put(arrivals.get(i).handle(), label);
          Arrival a = arrivals.get(i);
          lines.add(
              new Line(
                  a.startMillis(),
                  a.handle(),
                  String.format(
                      "start %d %s -> %s %s as %s %s",
                      a.startMillis(),
                      a.srcHost(),
                      a.dstHost(),
                      label,
                      ids.get(i),
                      new TreeMap<>(blind.get(i).attributes()))));
        }
      }
    }
    return ids;
  }

  @Override
  public void departed(long handle) {
    delegate.departed(handle);
  }

  @Override
  public CoflowExtension extension(ToLongFunction<Flow> handleOf) {
    return delegate.extension(handleOf);
  }

  /** Precision and recall (CODA's definitions, {@link Accuracy}) over the labelled flows so far. */
  public synchronized Accuracy accuracy() {
    Map<String, Long> clusters = new HashMap<>();
    Map<Long, Long> ids = new HashMap<>();
    for (Map.Entry<Long, String> e : found.entrySet()) {
      ids.put(e.getKey(), clusters.computeIfAbsent(e.getValue(), k -> (long) clusters.size()));
    }
    return Accuracy.of(ids, truth);
  }

  /**
   * One line per labelled flow so far, by start time: start (epoch ms), hosts, true and identified
   * coflow, and the attributes the identifier saw. What a test prints when identification fails.
   */
  public synchronized String describe() {
    StringBuilder b = new StringBuilder();
    lines.stream()
        .sorted(Comparator.comparingLong(Line::start).thenComparingLong(Line::handle))
        .forEach(l -> b.append(l.text()).append('\n'));
    return b.toString();
  }

  /** Labelled flows identified so far, per true coflow. */
  public synchronized Map<String, Integer> flowsPerLabel() {
    Map<String, Integer> n = new HashMap<>();
    truth.values().forEach(l -> n.merge(l, 1, Integer::sum));
    return n;
  }
}
