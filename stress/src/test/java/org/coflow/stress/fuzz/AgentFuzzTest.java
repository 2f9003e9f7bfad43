package org.coflow.stress.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 20,000 fuzz inputs against a real agent with Netty's leak detector at PARANOID: no fuzzed
 * connection is ever admitted, the agent forgets every connection and its bytes, a client with the
 * secret is served the right bytes at every check, and no buffer leaks.
 */
class AgentFuzzTest {
  private ResourceLeakDetector.Level before;

  @BeforeEach
  void paranoid() throws Exception {
    before = ResourceLeakDetector.getLevel();
    NettyLeaks.install();
    NettyLeaks.collect(); // reports of earlier tests in this JVM are theirs
  }

  @AfterEach
  void restore() {
    ResourceLeakDetector.setLevel(before);
  }

  @Test
  void twentyThousandInputsAdmitNothingLeakNothingAndLeaveTheAgentServing(@TempDir Path tmp)
      throws Exception {
    AgentFuzz.Result r = new AgentFuzz(20_000, 20_261_124L).checkEvery(2_000).run(tmp, null);

    assertEquals(List.of(), r.failures(), "failures (bypasses first of all)");
    assertEquals(0, r.failureCount());
    assertEquals(10, r.goodChecks());
    assertEquals(10, r.goodChecksPassed(), "the good client was served at every check");
    assertEquals(20_000, r.outcomes().values().stream().mapToLong(Long::longValue).sum());
    // The fuzz reached the handshake's every refusal, not just the preamble check.
    for (String outcome : List.of("refused:PROTOCOL", "refused:FORBIDDEN", "closed", "open")) {
      assertTrue(r.outcomes().getOrDefault(outcome, 0L) > 0, outcome + " in " + r.outcomes());
    }
    assertTrue(r.challenges() > 1_000, "wrong proofs answered " + r.challenges() + " challenges");
    // Handshake frames are at most 16 KiB, which every connection may buffer outside the budget:
    // the fuzz never reaches it (bench load does), and it must never cross it.
    assertTrue(r.peakBuffered() <= r.bufferCap(), "peak " + r.peakBuffered());
    assertTrue(r.ok());
    assertEquals(List.of(), NettyLeaks.collect(), "Netty buffers leaked");
  }

  @Test
  void theLeakCheckSeesALeak() throws Exception {
    ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(16);
    leaked.writeInt(1);
    leaked = null;
    List<String> leaks = NettyLeaks.collect();
    assertTrue(
        leaks.stream().anyMatch(l -> l.startsWith("LEAK: ")), "the dropped buffer is reported");
  }
}
