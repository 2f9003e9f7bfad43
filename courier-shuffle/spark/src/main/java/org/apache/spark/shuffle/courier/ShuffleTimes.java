package org.apache.spark.shuffle.courier;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.StageInfo;

/**
 * Each shuffle's completion time as a coflow, measured in the driver: from the submission of the
 * stage that reads it until that stage completes (the reducers wait for the shuffle's last flow, so
 * this is when the coflow is done for the job). Add with {@code --conf
 * spark.extraListeners=org.apache.spark.shuffle.courier.ShuffleTimes}; read with {@link #json()}
 * (also from pyspark: {@code spark._jvm.org.apache.spark.shuffle.courier.ShuffleTimes.json()}).
 */
public class ShuffleTimes extends SparkListener {
  /** One shuffle read by one stage. */
  private static final class Time {
    final int shuffleId;
    final int stageId;
    final String group;
    final long startMillis;
    final long endMillis;
    final long bytesRead;

    Time(
        int shuffleId,
        int stageId,
        String group,
        long startMillis,
        long endMillis,
        long bytesRead) {
      this.shuffleId = shuffleId;
      this.stageId = stageId;
      this.group = group;
      this.startMillis = startMillis;
      this.endMillis = endMillis;
      this.bytesRead = bytesRead;
    }
  }

  private static final List<Time> TIMES = new ArrayList<>();
  private final Map<Integer, Integer> shuffleWrittenBy = new ConcurrentHashMap<>();
  private final Map<Integer, String> groupOf = new ConcurrentHashMap<>();

  @Override
  public void onStageSubmitted(SparkListenerStageSubmitted event) {
    StageInfo s = event.stageInfo();
    if (s.shuffleDepId().isDefined()) {
      shuffleWrittenBy.put(s.stageId(), (Integer) s.shuffleDepId().get());
    }
    Properties p = event.properties();
    String group = p == null ? null : p.getProperty("spark.jobGroup.id");
    groupOf.put(s.stageId(), group == null ? "" : group);
  }

  @Override
  public void onStageCompleted(SparkListenerStageCompleted event) {
    StageInfo s = event.stageInfo();
    if (s.failureReason().isDefined()
        || s.submissionTime().isEmpty()
        || s.completionTime().isEmpty()) {
      return;
    }
    scala.collection.Iterator<Object> parents = s.parentIds().iterator();
    while (parents.hasNext()) {
      Integer shuffle = shuffleWrittenBy.get((Integer) parents.next());
      if (shuffle != null) {
        Time t =
            new Time(
                shuffle,
                s.stageId(),
                groupOf.getOrDefault(s.stageId(), ""),
                (Long) s.submissionTime().get(),
                (Long) s.completionTime().get(),
                s.taskMetrics().shuffleReadMetrics().totalBytesRead());
        synchronized (TIMES) {
          TIMES.add(t);
        }
      }
    }
  }

  /**
   * Every shuffle read so far, as a JSON array of {@code {"shuffle", "stage", "group", "cct_s",
   * "bytes_read"}} ({@code group}: the job group the reading stage ran in, empty if none).
   */
  public static String json() {
    StringBuilder b = new StringBuilder("[");
    synchronized (TIMES) {
      for (Time t : TIMES) {
        if (b.length() > 1) {
          b.append(',');
        }
        b.append(
            String.format(
                Locale.ROOT,
                "{\"shuffle\":%d,\"stage\":%d,\"group\":\"%s\",\"cct_s\":%.3f,"
                    + "\"bytes_read\":%d}",
                t.shuffleId,
                t.stageId,
                t.group.replace("\\", "\\\\").replace("\"", "\\\""),
                (t.endMillis - t.startMillis) / 1000.0,
                t.bytesRead));
      }
    }
    return b.append(']').toString();
  }
}
