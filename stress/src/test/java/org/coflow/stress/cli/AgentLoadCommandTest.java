package org.coflow.stress.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/coflow bench load} with small numbers: the agent's JVM starts with its memory capped,
 * the hostile connections are opened and every stream completes with the right bytes; the JSON
 * carries the documented figures.
 */
class AgentLoadCommandTest extends CliHarness {
  @Test
  void smallLoadCompletesEveryStreamWithoutRunningOutOfMemory() {
    assertEquals(
        0,
        run(
            "bench",
            "load",
            "--streams",
            "50",
            "--idle",
            "20",
            "--clients",
            "1",
            "--streams-per-connection",
            "16",
            "--block-size",
            "64k",
            "--direct-memory",
            "32m",
            "--json"),
        err() + out());
    String json = out().trim();
    assertEquals(50, number(json, "streams_completed"), json);
    assertEquals(0, number(json, "streams_wrong_bytes"), json);
    assertTrue(json.contains("\"out_of_memory\":false"), json);
    assertTrue(json.contains("\"ok\":true"), json);
    // 50 streams on one connection against a bound of 16 in flight (and as many again waiting in
    // the agent): some are refused, then retried.
    assertTrue(number(json, "busy_refusals") > 0, json);
    assertTrue(json.contains("\"maxStreamsPerConnection\":"), json);
    assertTrue(json.contains("\"other_errors\":{}"), json);
    assertEquals(
        number(json, "streams") + number(json, "busy_refusals"),
        number(json, "stream_attempts"),
        json);
    // A first frame announcing 16 MiB is refused at once; the other kinds are held.
    assertTrue(json.contains("\"announce_16m:PROTOCOL\":5"), json);
    assertEquals(15, number(json, "idle_held"), json);
    assertEquals(32 << 20, number(json, "buffered_cap_bytes"), json);
    assertEquals(64 << 20, number(json, "direct_cap_bytes"), json);
    // Five peers with the secret hold 1 MiB of an unfinished request each.
    assertTrue(number(json, "buffered_peak_bytes") >= 5 << 20, json);
    for (String field :
        List.of(
            "direct_peak_bytes",
            "netty_pooled_direct_peak_bytes",
            "heap_peak_bytes",
            "heap_max_bytes",
            "stream_seconds",
            "client_connections_refused",
            "agent_refused_connections")) {
      assertTrue(number(json, field) >= 0, field + " in " + json);
    }
    assertTrue(number(json, "direct_peak_bytes") <= 64 << 20, json);
  }

  @Test
  void badArgumentsAreNamed() {
    assertEquals(2, run("bench", "load", "--streams", "0"));
    assertTrue(err().contains("--streams must be an integer of at least 1, got '0'"), err());
    assertEquals(2, run("bench", "load", "--direct-memory", "lots"));
    assertTrue(err().contains("--direct-memory"), err());
  }

  private static double number(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":(-?[0-9.eE+-]+)").matcher(json);
    assertTrue(m.find(), field + " missing from " + json);
    return Double.parseDouble(m.group(1));
  }
}
