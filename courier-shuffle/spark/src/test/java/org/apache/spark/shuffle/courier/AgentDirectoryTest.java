package org.apache.spark.shuffle.courier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.rpc.RpcAddress;
import org.apache.spark.rpc.RpcCallContext;
import org.junit.jupiter.api.Test;
import scala.PartialFunction;
import scala.runtime.BoxedUnit;

/**
 * The driver's agent directory speaks in String arrays only (classes of ours could not be read by
 * Spark 4's RPC threads from a {@code --jars} jar): registrations, lookups and unreachable reports
 * round-trip, and anything malformed is not taken (Spark then answers "unsupported message").
 */
class AgentDirectoryTest {
  private final List<Object> replies = new ArrayList<>();
  private final RpcCallContext context =
      new RpcCallContext() {
        @Override
        public void reply(Object response) {
          replies.add(response);
        }

        @Override
        public void sendFailure(Throwable e) {
          replies.add(e);
        }

        @Override
        public RpcAddress senderAddress() {
          return null;
        }
      };
  private final PartialFunction<Object, BoxedUnit> endpoint =
      new AgentDirectory.Endpoint(null).receiveAndReply(context);

  private Object ask(String... message) {
    assertTrue(endpoint.isDefinedAt(message), String.join(",", message));
    endpoint.apply(message);
    return replies.remove(replies.size() - 1);
  }

  @Test
  void registerLookupAndUnreachableRoundTrip() {
    assertNull(ask(AgentDirectory.LOOKUP, "3"));
    assertEquals(Boolean.TRUE, ask(AgentDirectory.REGISTER, "3", "host-a", "127.0.0.1:7000"));
    assertArrayEquals(
        new String[] {"3", "host-a", "127.0.0.1:7000"}, (String[]) ask(AgentDirectory.LOOKUP, "3"));
    // An unreachable report for an address the executor no longer has changes nothing.
    assertEquals(Boolean.TRUE, ask(AgentDirectory.UNREACHABLE, "3", "127.0.0.1:6999"));
    assertTrue(ask(AgentDirectory.LOOKUP, "3") instanceof String[]);
    assertEquals(Boolean.TRUE, ask(AgentDirectory.UNREACHABLE, "3", "127.0.0.1:7000"));
    assertNull(ask(AgentDirectory.LOOKUP, "3"));
  }

  @Test
  void malformedMessagesAreNotTaken() {
    for (Object bad :
        List.of(
            new String[] {AgentDirectory.REGISTER, "3", null, "127.0.0.1:7000"},
            new String[] {AgentDirectory.REGISTER, "3", "host-a"},
            new String[] {AgentDirectory.LOOKUP},
            new String[] {AgentDirectory.LOOKUP, null},
            new String[] {"courier.forget", "3"},
            new String[0],
            "courier.lookup",
            new Object[] {AgentDirectory.LOOKUP, "3"})) {
      assertFalse(endpoint.isDefinedAt(bad), String.valueOf(bad));
    }
    assertNull(ask(AgentDirectory.LOOKUP, "3")); // nothing was registered by them
  }
}
