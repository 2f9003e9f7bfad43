package org.coflow.bench.trace;

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
}
