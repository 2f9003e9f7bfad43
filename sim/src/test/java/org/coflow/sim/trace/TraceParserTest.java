package org.coflow.sim.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TraceParserTest {
  @Test
  void shippedTraceMatchesItsReadme() throws Exception {
    Trace t = TraceParser.parse(Path.of("data/coflow-benchmark/FB2010-1Hr-150-0.txt"));
    assertEquals(150, t.ports());
    assertEquals(526, t.coflows().size());
    long flows = 0;
    double mb = 0;
    for (TraceCoflow c : t.coflows()) {
      flows += c.flowCount();
      mb += c.totalBytes() / Trace.MB;
    }
    assertEquals(706_397, flows);
    assertEquals(35_533_534, mb, 0.5);
    TraceCoflow second = t.coflows().get(1);
    assertEquals(10833, second.arrivalMs());
    assertEquals(24 * Trace.MB, second.flowBytes(0));
  }

  @ParameterizedTest(name = "{1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "2 1\\n1 0 1 0 1 1:-4.0|hand:2: reducer size '-4.0' of coflow 1 must be a positive number of MB",
        "2 1\\n1 0 1 0 1 1:abc|hand:2: reducer size 'abc' of coflow 1 is not a number of MB",
        "2 1\\n1 0 1 7 1 1:4.0|hand:2: mapper port 7 is outside the fabric of 2 ports (0..1)",
        "2 1\\n1 0 1 0 1 1|hand:2: reducer '1' of coflow 1 must be 'port:MB'",
        "2 1\\n1 0 2 0|hand:2: line ends where the mapper port should be",
        "2 1\\n1 0 1 0 1 1:4.0 9|hand:2: unexpected '9' after the 1 reducers of coflow 1",
        "2 2\\n1 5 1 0 1 1:4.0\\n2 3 1 0 1 1:4.0|hand:3: arrival 3 ms of coflow 2 is earlier",
        "2 2\\n1 0 1 0 1 1:4.0|hand:1: header announces 2 coflows but the file has 1",
        "two 1|hand:1: number of ports must be a whole number, got 'two'",
        "2 1\\n1 -5 1 0 1 1:4.0|hand:2: arrival time (ms) must not be negative, got '-5'",
        "2 1\\n1 0 2 0 0 1 1:4.0|hand:2: coflow 1 lists mapper port 0 twice",
      })
  void malformedInputNamesFileLineAndValue(String text, String message) {
    TraceFormatException e =
        assertThrows(
            TraceFormatException.class,
            () -> TraceParser.parse("hand", new StringReader(text.replace("\\n", "\n"))));
    assertTrue(e.getMessage().startsWith(message), e.getMessage());
  }

  @Test
  void twoToThe31PortsIsRefusedNamingLineValueAndBound() {
    TraceFormatException e = refused("2147483648 1\n1 0 1 0 1 1:4.0");
    assertTrue(
        e.getMessage().startsWith("hand:1: number of ports 2147483648 is over the bound of 10000;"),
        e.getMessage());
  }

  /** Each count is refused before an array or list is sized from it (no OutOfMemoryError). */
  @ParameterizedTest(name = "{1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "2147483647 1\\n1 0 1 0 1 1:4.0|hand:1: number of ports 2147483647 is over the bound of 10000",
        "10001 0|hand:1: number of ports 10001 is over the bound of 10000",
        "2 2147483647\\n1 0 1 0 1 1:4.0|hand:1: number of coflows 2147483647 is over the bound of 10000000",
        "10000 1000000|hand:1: 10000 ports times 1000000 coflows is over the bound of 2147483647",
        "2 1\\n1 0 2147483647 0|hand:2: number of mappers 2147483647 of coflow 1 is more than the fabric's 2 ports",
        "2 1\\n1 0 3 0 1 1 1 1:4.0|hand:2: number of mappers 3 of coflow 1 is more than the fabric's 2 ports",
        "2 1\\n1 0 1 0 2147483647 1:4.0|hand:2: number of reducers 2147483647 of coflow 1 is more than",
        "2 1\\n1 0 1 0 99999999999999999999 1:4.0|hand:2: number of reducers 99999999999999999999 of",
        "2 1\\n1 100000000001 1 0 1 1:4.0|hand:2: arrival time (ms) 100000000001 is over the bound of 100000000000 ms",
        "2 1\\n1 0 1 0 1 1:4.0\\n2 0 1 0 1 1:4.0|hand:1: header announces 1 coflows but the file has more (line 3",
      })
  void declaredCountsOverTheirBoundsAreRefused(String text, String message) {
    TraceFormatException e = refused(text);
    assertTrue(e.getMessage().startsWith(message), e.getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "1e308|is over the 1,000,000,000 MB bound; check the trace's units",
        "1000000001|is over the 1,000,000,000 MB bound; check the trace's units",
        "Infinity|is over the 1,000,000,000 MB bound; check the trace's units",
        "NaN|must be a positive number of MB, at most 1,000,000,000",
        "-4.0|must be a positive number of MB, at most 1,000,000,000",
        "-0.0|must be a positive number of MB, at most 1,000,000,000",
      })
  void reducerSizesOutsideTheBoundAreRefused(String size, String message) {
    TraceFormatException e = refused("2 1\n1 0 1 0 1 1:" + size);
    assertEquals(
        "hand:2: reducer size '" + size + "' of coflow 1 " + message,
        e.getMessage().split(" \\(")[0]);
  }

  @Test
  void traceAtTheBoundsStillLoads() throws Exception {
    Trace t =
        TraceParser.parse(
            "hand",
            new StringReader(
                "10000 2\n1 0 2 0 9999 1 5:1000000000\n2 100000000000 1 3 2 0:0.5 9999:2.0\n"));
    assertEquals(10_000, t.ports());
    assertEquals(2, t.coflows().size());
    TraceCoflow big = t.coflows().get(0);
    assertEquals(1e9 * Trace.MB / 2, big.flowBytes(0));
    assertTrue(Double.isFinite(big.totalBytes()));
    assertEquals(100_000_000_000L, t.coflows().get(1).arrivalMs());
    assertEquals(4, t.coflows().get(0).flowCount() + t.coflows().get(1).flowCount());
  }

  private static TraceFormatException refused(String text) {
    return assertThrows(
        TraceFormatException.class,
        () -> TraceParser.parse("hand", new StringReader(text.replace("\\n", "\n"))));
  }
}
