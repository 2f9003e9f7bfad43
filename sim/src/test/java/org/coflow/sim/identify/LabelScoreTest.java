package org.coflow.sim.identify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Map;
import org.coflow.core.identify.Accuracy;
import org.coflow.core.identify.AttributeIdentifier;
import org.coflow.core.identify.CoflowIdentifier.Arrival;
import org.junit.jupiter.api.Test;

class LabelScoreTest {
  private static Arrival flow(long handle, long start, String job, String label) {
    Map<String, String> attrs =
        label == null ? Map.of("job", job) : Map.of("job", job, LabelScore.LABEL, label);
    return new Arrival(handle, "h", handle, "a", "b", start, attrs);
  }

  private static final List<Arrival> ROUND =
      List.of(
          flow(1, 1_000_200, "x", "X"),
          flow(2, 1_000_100, "x", "X"),
          flow(3, 1_000_300, "x", "Y"),
          flow(4, 999_000, "y", null),
          flow(5, 99_999, "z", "Z"));

  @Test
  void scoresTheDelegatesGroupsAgainstTheLabelsOfLabelledFlowsOnly() {
    LabelScore score = new LabelScore(new AttributeIdentifier("job"));
    assertEquals(
        List.of("job=x", "job=x", "job=x", "job=y", "job=z"), score.identify(ROUND, 1_000_400));
    Accuracy a = score.accuracy();
    assertEquals(4, a.flows());
    assertEquals(3.0 / 4, a.precision(), 1e-12); // Y shares X's coflow
    assertEquals(1.0, a.recall(), 1e-12);
    assertEquals(Map.of("X", 2, "Y", 1, "Z", 1), score.flowsPerLabel());
    assertEquals(
        "start 99999 a -> b Z as job=z {job=z}\n"
            + "start 1000100 a -> b X as job=x {job=x}\n"
            + "start 1000200 a -> b X as job=x {job=x}\n"
            + "start 1000300 a -> b Y as job=x {job=x}\n",
        score.describe());
  }

  @Test
  void theDelegateNeverSeesTheLabel() {
    // Grouping by the label itself finds nothing to group by: every flow is alone.
    LabelScore score = new LabelScore(new AttributeIdentifier(LabelScore.LABEL));
    List<String> ids = score.identify(ROUND, 1_000_400);
    assertFalse(ids.stream().anyMatch(id -> id.startsWith(LabelScore.LABEL)), ids.toString());
    assertEquals(3.0 / 4, score.accuracy().recall(), 1e-12); // X split in two
  }
}
