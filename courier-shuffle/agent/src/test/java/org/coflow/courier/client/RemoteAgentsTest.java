package org.coflow.courier.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.coflow.courier.protocol.HostPort;
import org.junit.jupiter.api.Test;

class RemoteAgentsTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final AtomicInteger lookups = new AtomicInteger();
  private final Map<String, RemoteAgent> directory = new HashMap<>();

  private RemoteAgents<String> agents(long suspendMillis) {
    return new RemoteAgents<>(
        k -> {
          lookups.incrementAndGet();
          return directory.get(k);
        },
        suspendMillis,
        now::get);
  }

  @Test
  void looksUpOnceThenServesFromTheCache() throws Exception {
    RemoteAgent a = new RemoteAgent("h1", HostPort.parse("127.0.0.1:7337", "test"));
    directory.put("exec-1", a);
    RemoteAgents<String> agents = agents(30_000);
    assertSame(a, agents.get("exec-1"));
    assertSame(a, agents.get("exec-1"));
    assertEquals(1, lookups.get());
  }

  @Test
  void aFailureEvictsAndSuspendsForTheConfiguredTime() throws Exception {
    directory.put("m", new RemoteAgent("m", HostPort.parse("10.0.0.1:13563", "test")));
    RemoteAgents<String> agents = agents(30_000);
    agents.get("m");
    agents.failed("m");
    assertNull(agents.get("m"), "suspended");
    now.addAndGet(29_999);
    assertNull(agents.get("m"), "still suspended");
    now.addAndGet(1);
    assertEquals("m", agents.get("m").hostId());
    assertEquals(2, lookups.get(), "looked up again after the suspension");
  }

  @Test
  void withoutASuspensionAFailedKeyIsLookedUpAtOnce() throws Exception {
    directory.put("exec-2", new RemoteAgent("exec-2", HostPort.parse("127.0.0.1:1", "test")));
    RemoteAgents<String> agents = agents(0);
    agents.get("exec-2");
    agents.failed("exec-2");
    agents.get("exec-2");
    assertEquals(2, lookups.get());
  }

  @Test
  void aKeyWithNoAgentIsSuspendedToo() throws Exception {
    RemoteAgents<String> agents = agents(5_000);
    assertNull(agents.get("nobody"));
    assertNull(agents.get("nobody"));
    assertEquals(1, lookups.get());
  }
}
