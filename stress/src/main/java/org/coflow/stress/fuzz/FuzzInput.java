package org.coflow.stress.fuzz;

import java.util.List;
import org.coflow.api.proto.courier.v1.Challenge;
import org.coflow.api.proto.courier.v1.Hello;

/**
 * One input of the fuzz: what to write on a fresh connection, in which pieces (each written and
 * flushed on its own, so the agent may read a frame across several reads), what to answer the
 * agent's challenge with if it sends one, and whether to leave the connection open afterwards (a
 * peer that stops mid-frame) instead of half-closing it (a peer that said all it had to say).
 *
 * @param kind the family the input comes from, for the summary ({@code hello}, {@code lengths},
 *     ...)
 * @param writes the pieces written at once, in order
 * @param hello the HELLO among them that earns a challenge (null when none should)
 * @param answer what to write once a challenge arrives (null: nothing is awaited)
 * @param keepOpen wait a moment and close without half-closing first
 */
record FuzzInput(String kind, List<byte[]> writes, Hello hello, Answer answer, boolean keepOpen) {
  /** The bytes a fuzzed peer writes after the agent's challenge; never a valid proof. */
  interface Answer {
    byte[] after(Challenge challenge);
  }

  /** The first bytes of the input, in hex, to name it in a report. */
  String head() {
    StringBuilder s = new StringBuilder();
    for (byte[] w : writes) {
      for (byte b : w) {
        if (s.length() >= 128) {
          return s + "...";
        }
        s.append(String.format("%02x", b));
      }
      s.append(' ');
    }
    return s.toString().trim();
  }
}
