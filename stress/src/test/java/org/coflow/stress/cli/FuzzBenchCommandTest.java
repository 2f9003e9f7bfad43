package org.coflow.stress.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code bin/coflow bench fuzz} as users call it (the fuzz itself: {@code AgentFuzzTest}). */
class FuzzBenchCommandTest extends CliHarness {
  @Test
  void jsonCountsEveryInputAndTheChecks() {
    assertEquals(
        0, run("bench", "fuzz", "--inputs", "500", "--check-every", "250", "--json"), err());
    String json = out().trim();
    for (String field :
        new String[] {
          "\"inputs\":500",
          "\"seed\":1",
          "\"good_checks\":2",
          "\"good_checks_passed\":2",
          "\"failure_count\":0",
          "\"failures\":[]",
          "\"outcomes\":{",
          "\"refused:PROTOCOL\":",
          "\"kinds\":{",
          "\"wrong_proof\":",
          "\"inputs_per_second\":",
          "\"peak_buffered_bytes\":",
          "\"ok\":true"
        }) {
      assertTrue(json.contains(field), "missing " + field + " in " + json);
    }
  }

  @Test
  void badArgumentsAreNamed() {
    assertEquals(2, run("bench", "fuzz", "--inputs", "0"));
    assertTrue(err().contains("--inputs must be an integer of at least 1, got '0'"), err());
    assertEquals(2, run("bench", "fuzz", "--seed", "x"));
    assertTrue(err().contains("--seed"), err());
  }

  @Test
  void eachStressTestHasItsOwnHelp() {
    for (String b : new String[] {"fuzz", "load", "master"}) {
      out.reset();
      assertEquals(0, run("bench", b, "--help"), b);
      assertTrue(out().startsWith("Usage: coflow bench " + b + " ["), out());
    }
    assertEquals(2, run("bench", "nope"));
    assertTrue(err().contains("'bench fuzz', 'bench load' and 'bench master'"), err());
  }
}
