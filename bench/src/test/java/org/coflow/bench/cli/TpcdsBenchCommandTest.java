package org.coflow.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.coflow.bench.tpcds.TpcdsBenchApp;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/coflow bench tpcds}'s arguments, result parsing and figures. The command itself runs
 * spark-submit at a small scale in integration-tests ({@code TpcdsBenchSmokeTest}).
 */
class TpcdsBenchCommandTest extends CliHarness {
  @Test
  void badArgumentsAreNamed() {
    assertEquals(2, run("bench", "tpcds", "--scale", "0"));
    assertTrue(err().contains("--scale 0 is out of range"), err());
    assertEquals(2, run("bench", "tpcds", "--streams", "0"));
    assertTrue(err().contains("--streams 0 is out of range"), err());
    assertEquals(2, run("bench", "tpcds", "--only", "both"));
    assertTrue(err().contains("--only 'both'"), err());
    assertEquals(2, run("bench", "tpcds", "--gap", "-5"));
    assertTrue(err().contains("--gap -5 is out of range"), err());
    assertEquals(2, run("bench", "tpcds", "--gap", "soon"));
    assertTrue(err().contains("a number was expected (For input string: \"soon\")"), err());
    assertEquals(2, run("bench", "tpcds", "--queries", "q3,q100"));
    assertTrue(err().contains("no TPC-DS query named 'q100'"), err());
    assertEquals(2, run("bench", "tpcds", "--spark-conf", "readHostLocalDisk=false"));
    assertTrue(
        err().contains("--spark-conf 'readHostLocalDisk=false': use spark.KEY=VALUE"), err());
    assertEquals(2, run("bench", "tpcds", "--queries", "../etc/passwd"));
    assertTrue(err().contains("no TPC-DS query named '../etc/passwd'"), err());
  }

  @Test
  void helpListsTheDefaultQueries() {
    assertEquals(0, run("bench", "tpcds", "--help"));
    assertTrue(out().contains(TpcdsBenchCommand.DEFAULT_QUERIES), out());
  }

  @Test
  void figuresComeFromTheAppsLines() {
    List<TpcdsReport.Run> single =
        TpcdsReport.parse(
            List.of(
                "single\tq4\tstock.1\t2.400\t100\taa",
                "single\tq4\tcourier.1\t2.200\t100\taa",
                "single\tq4\tcourier.2\t2.200\t100\taa",
                "single\tq4\tstock.2\t1.600\t100\taa",
                "single\tq4\twarmup.1\t0\t100\taa",
                "single\tq4\twarmup.2\t0\t100\taa",
                "single\tq17\tcourier.1\t1.500\t1\tbb",
                "single\tq17\tstock.1\t2.000\t1\tbb",
                "single\tq17\tstock.2\t2.000\t1\tbb",
                "single\tq17\tcourier.2\t0.500\t1\tbb",
                "wall\t9.1"));
    assertEquals(10, single.size());
    List<TpcdsReport.Run> fair =
        TpcdsReport.parse(List.of("stream\t0\tq4\t4.000\t100\taa", "stream\t1\tq17\t6.000\t1\tbb"));
    List<TpcdsReport.Run> policy =
        TpcdsReport.parse(List.of("stream\t1\tq4\t3.000\t100\taa", "stream\t0\tq17\t2.000\t1\tbb"));
    Map<String, List<TpcdsReport.Run>> results = new LinkedHashMap<>();
    results.put("single", single);
    results.put("fair", fair);
    results.put("policy", policy);
    TpcdsReport r = new TpcdsReport(1, 2, 0, 25e6, "aalo", List.of("q4", "q17"), results, "3.5.9");
    // Each reader's time is the mean of its runs: stock 2.0 + 2.0, ours 2.2 + 1.0.
    assertEquals(3.2 / 4.0, r.singleRatio(), 1e-9);
    // The first timed run over the same reader's last: q4 2.4 / 1.6, q17 1.5 / 0.5.
    assertEquals(Math.sqrt(1.5 * 3.0), r.orderEffect(), 1e-9);
    assertEquals(2.5 / 5.0, r.streamsRatio(), 1e-9);
    assertTrue(r.digestsAgree());
    assertTrue(r.json().contains("\"single_time_ratio\":0.8"), r.json());
    assertTrue(
        r.json().contains("\"runs\":[\"s 2.40\",\"c 2.20\",\"c 2.20\",\"s 1.60\"]"), r.json());
    assertTrue(r.json().contains("\"streams_mean_query_ratio\":0.5"), r.json());
    assertTrue(r.table().contains("time ratio ours/stock = 0.800"), r.table());
    assertTrue(r.table().contains("s 2.40 c 2.20 c 2.20 s 1.60"), r.table());
    assertTrue(r.table().contains("first timed run / the same reader's last = 2.121"), r.table());

    results.put("policy", TpcdsReport.parse(List.of("stream\t1\tq4\t3.000\t99\tcc")));
    r = new TpcdsReport(1, 2, 0, 25e6, "aalo", List.of("q4", "q17"), results, "3.5.9");
    assertFalse(r.digestsAgree());
    assertTrue(r.table().contains("ROWS DIFFER"), r.table());
  }

  @Test
  void theAppRunsEachReaderTwiceEachGoingFirstInTurn() {
    assertEquals(List.of("stock.1", "courier.1", "courier.2", "stock.2"), TpcdsBenchApp.order(0));
    assertEquals(List.of("courier.1", "stock.1", "stock.2", "courier.2"), TpcdsBenchApp.order(1));
  }
}
