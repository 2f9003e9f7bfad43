package org.coflow.core.identify;

/**
 * CODA's learned diagonal metric over a pair of flows (seed 002 §3.2): {@code d = sqrt(wTime·ΔS² +
 * wCom·Dcom + wPrt·Dprt)}, where ΔS is the difference of start times in seconds, Dcom is 0 if both
 * flows are in the same community and 1 otherwise, and Dprt is 0 if both go to the same destination
 * host and port (Spark's aggregation) and 1 otherwise. The weights with (near) zero learned weight
 * (packet statistics) are pruned, as the paper does.
 *
 * <p>Decisions where the paper is silent:
 *
 * <ul>
 *   <li>Time is in seconds. The paper's default ε = 100 refers to a normalised start time whose
 *       normalisation is cut off in the text; with seconds and its Spark weights, flows 100 ms
 *       apart are 0.2 apart and flows of different communities at least 2.33 apart, so ε around 1
 *       sits between the intra-coflow gaps (≤ 1 s) and the inter-coflow gaps (seconds) as its
 *       guidance asks.
 *   <li>Mixed Spark and Hadoop traffic: each flow's framework comes from its port signature; a pair
 *       of one Spark and one Hadoop flow is never in one coflow (distance +∞), a Spark pair uses
 *       the Spark weights, a Hadoop pair the Hadoop weights.
 * </ul>
 */
public final class CodaMetric {
  /** The paper's learned Spark weights (S_time, D_com, D_prt). */
  public static final CodaMetric PAPER_SPARK_HADOOP =
      new CodaMetric(3.825, 5.431, 0.217, 3.472, 3.207, 0.0);

  /** Every kept attribute weighted 1, for comparison with learned weights. */
  public static final CodaMetric UNIFORM = new CodaMetric(1, 1, 1, 1, 1, 1);

  final double sparkTime;
  final double sparkCom;
  final double sparkPrt;
  final double hadoopTime;
  final double hadoopCom;
  final double hadoopPrt;

  public CodaMetric(
      double sparkTime,
      double sparkCom,
      double sparkPrt,
      double hadoopTime,
      double hadoopCom,
      double hadoopPrt) {
    double[] all = {sparkTime, sparkCom, sparkPrt, hadoopTime, hadoopCom, hadoopPrt};
    for (double w : all) {
      if (!(w >= 0) || Double.isInfinite(w)) {
        throw new IllegalArgumentException(
            "metric weights must be finite and non-negative, got " + w);
      }
    }
    if (sparkTime <= 0 || hadoopTime <= 0) {
      throw new IllegalArgumentException(
          "the start-time weights must be positive (got "
              + sparkTime
              + ", "
              + hadoopTime
              + "): without them every flow of a community would be one coflow");
    }
    this.sparkTime = sparkTime;
    this.sparkCom = sparkCom;
    this.sparkPrt = sparkPrt;
    this.hadoopTime = hadoopTime;
    this.hadoopCom = hadoopCom;
    this.hadoopPrt = hadoopPrt;
  }

  /** The distance between two flows (+∞ across frameworks). */
  public double distance(FlowPoint a, FlowPoint b) {
    if (a.hadoop() != b.hadoop()) {
      return Double.POSITIVE_INFINITY;
    }
    double dt = a.startSec() - b.startSec();
    double com = a.community() == b.community() ? 0 : 1;
    double prt = a.dst() == b.dst() && a.dstPort() == b.dstPort() ? 0 : 1;
    return a.hadoop()
        ? Math.sqrt(hadoopTime * dt * dt + hadoopCom * com + hadoopPrt * prt)
        : Math.sqrt(sparkTime * dt * dt + sparkCom * com + sparkPrt * prt);
  }

  /** How far apart in start time two flows within {@code radius} can be, at most (seconds). */
  public double timeReach(double radius) {
    return radius / Math.sqrt(Math.min(sparkTime, hadoopTime));
  }

  /**
   * Reads weights written by {@link #store}: a properties file with keys {@code spark.time,
   * spark.community, spark.port, hadoop.time, hadoop.community, hadoop.port}.
   *
   * @throws IllegalArgumentException naming the file and the missing or bad key
   */
  public static CodaMetric load(java.nio.file.Path file) throws java.io.IOException {
    java.util.Properties p = new java.util.Properties();
    try (java.io.Reader r = java.nio.file.Files.newBufferedReader(file)) {
      p.load(r);
    }
    String[] keys = {
      "spark.time",
      "spark.community",
      "spark.port",
      "hadoop.time",
      "hadoop.community",
      "hadoop.port"
    };
    double[] w = new double[keys.length];
    for (int i = 0; i < keys.length; i++) {
      String v = p.getProperty(keys[i]);
      if (v == null) {
        throw new IllegalArgumentException(
            file + ": no '" + keys[i] + "' (a metric file has " + String.join(", ", keys) + ")");
      }
      try {
        w[i] = Double.parseDouble(v.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            file + ": " + keys[i] + " = '" + v + "' is not a number");
      }
    }
    try {
      return new CodaMetric(w[0], w[1], w[2], w[3], w[4], w[5]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage());
    }
  }

  /** Writes the weights as a properties file {@link #load} reads. */
  public void store(java.nio.file.Path file, String comment) throws java.io.IOException {
    String text =
        "# "
            + comment
            + "\n"
            + "spark.time="
            + sparkTime
            + "\nspark.community="
            + sparkCom
            + "\nspark.port="
            + sparkPrt
            + "\n"
            + "hadoop.time="
            + hadoopTime
            + "\nhadoop.community="
            + hadoopCom
            + "\nhadoop.port="
            + hadoopPrt
            + "\n";
    java.nio.file.Files.writeString(file, text);
  }

  /** The weights, Spark's then Hadoop's (time, community, port). */
  public double[] weights() {
    return new double[] {sparkTime, sparkCom, sparkPrt, hadoopTime, hadoopCom, hadoopPrt};
  }
}
