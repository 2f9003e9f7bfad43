package org.coflow.stress.fuzz;

import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.courier.AgentOptions;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.protocol.FrameType;
import org.coflow.stress.wire.RawFrames;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The coverage-guided twin of {@code bench fuzz} (Jazzer): the fuzzer's bytes go to a fresh
 * connection of a real agent with a cluster secret, after a valid preamble or none, and half the
 * time as the answer to the agent's challenge of a proper HELLO; whatever they are, the agent may
 * only answer CHALLENGE or ERROR. Opt-in (tag {@code bench}); to fuzz for the annotation's
 * duration: {@code JAZZER_FUZZ=1 mvn -Pbench -pl stress test -Dtest=AgentJazzerTest}. Without
 * {@code JAZZER_FUZZ} it replays the corpus found so far ({@code stress/.cifuzz-corpus}).
 */
@Tag("bench")
class AgentJazzerTest {
  private static final Credentials CLUSTER =
      Credentials.of(Credentials.CLUSTER, Secret.of(new byte[32], "the Jazzer test's secret"));
  private static CourierAgent agent;
  private static Exchange exchange;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("coflow-jazzer");
    agent =
        CourierAgent.start(
            AgentOptions.forHost(AgentFuzz.HOST)
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .credentials(CLUSTER)
                .roots(List.of(dir.toRealPath()))
                .clientRegistrations(true));
    exchange = new Exchange(agent.address(), CLUSTER.secret(), 25, 3000);
  }

  @AfterAll
  static void stop() {
    agent.close();
  }

  @FuzzTest(maxDuration = "2m")
  void theAgentAdmitsNoPeerWithoutTheSecret(FuzzedDataProvider data) {
    BugDetectors.allowNetworkConnections(); // the agent on loopback is the target
    FuzzInput input;
    if (data.consumeBoolean()) {
      Hello hello =
          Hello.newBuilder()
              .setRole(Role.ROLE_AGENT)
              .setHostId("jazzer-peer")
              .setIdentity(Credentials.CLUSTER)
              .setNonce(ByteString.copyFrom(data.consumeBytes(32)))
              .build();
      byte[] answer = data.consumeRemainingAsBytes();
      input =
          new FuzzInput(
              "jazzer_answer",
              List.of(
                  RawFrames.concat(RawFrames.preamble(), RawFrames.frame(FrameType.HELLO, hello))),
              hello,
              challenge -> answer.clone(),
              false);
    } else {
      boolean preamble = data.consumeBoolean();
      byte[] rest = data.consumeRemainingAsBytes();
      input =
          new FuzzInput(
              "jazzer",
              List.of(preamble ? RawFrames.concat(RawFrames.preamble(), rest) : rest),
              null,
              null,
              false);
    }
    for (RawFrames.Reply r : exchange.play(input).replies().frames()) {
      if (r.type() != FrameType.CHALLENGE.id() && r.type() != FrameType.ERROR.id()) {
        fail("a connection that proved nothing got " + r.typeName());
      }
    }
  }
}
