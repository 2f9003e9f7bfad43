package org.coflow.coda.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The connection table on its own (no instrumentation): the idle-gap rule that splits what a
 * connection sends into flows, pruning, labels, and the write statistics CODA reports.
 */
class ConnectionsTest {
  private ServerSocketChannel server;
  private SocketChannel client;
  private SocketChannel accepted;
  private ScheduledExecutorService timer;
  private Connections table;

  @BeforeEach
  void connect() throws Exception {
    server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    client = SocketChannel.open(server.getLocalAddress());
    accepted = server.accept();
    timer = Executors.newSingleThreadScheduledExecutor();
    table = new Connections(100, 100_000, 1 << 20, 0, timer);
  }

  @AfterEach
  void close() throws Exception {
    timer.shutdownNow();
    client.close();
    accepted.close();
    server.close();
  }

  @Test
  void anIdleGapEndsAFlowAndTheNextWriteStartsAnother() throws Exception {
    table.written(client, 150_000);
    table.written(client, 50_000);
    List<FlowView> first = table.sweep();
    assertEquals(1, first.size());
    assertEquals(200_000, first.get(0).bytes);
    assertTrue(first.get(0).first);
    assertFalse(first.get(0).finished);
    assertEquals(100_000, first.get(0).sizeMean, 1e-9);
    assertEquals(5e9, first.get(0).sizeVariance, 1);
    Thread.sleep(250);
    table.written(client, 300_000);
    List<FlowView> next = table.sweep();
    assertEquals(2, next.size(), "the finished flow once, then the new one");
    assertTrue(next.get(0).finished);
    assertEquals(200_000, next.get(0).bytes);
    assertEquals(300_000, next.get(1).bytes);
    assertNotEquals(next.get(0).id, next.get(1).id);
    assertTrue(next.get(1).first);
  }

  @Test
  void flowsUnderTheThresholdAreNeverReported() throws Exception {
    table.written(client, 99_999);
    assertTrue(table.sweep().isEmpty());
    Thread.sleep(250);
    assertTrue(table.sweep().isEmpty(), "a small flow that ended is not reported either");
  }

  @Test
  void aClosedConnectionEndsItsFlowAndLeavesTheTable() throws Exception {
    table.written(client, 500_000);
    assertEquals(1, table.sweep().size());
    table.closed(client);
    List<FlowView> last = table.sweep();
    assertEquals(1, last.size());
    assertTrue(last.get(0).finished);
    assertEquals(0, table.size());
    assertTrue(table.sweep().isEmpty());
  }

  @Test
  void theRequestsAConnectionReceivesLabelItsFlow() throws Exception {
    byte[] req =
        "GET /mapOutput?job=job_1_0007&reduce=1&map=m HTTP/1.1\r\nHost: h\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII);
    table.received(client, req, 0, req.length);
    table.written(client, 200_000);
    List<FlowView> flows = table.sweep();
    assertEquals("mr:job_1_0007", flows.get(0).label);
    assertEquals(
        ((InetSocketAddress) client.getRemoteAddress()).getPort(), flows.get(0).remote.getPort());
  }

  @Test
  void withoutAMasterOrARateNothingIsPaced() {
    table.written(client, 2 << 20);
    assertEquals(Long.MAX_VALUE, table.writeBudget(client, 1 << 20, false));
    table.coordinated(true);
    assertEquals(
        Long.MAX_VALUE, table.writeBudget(client, 1 << 20, false), "no coordination wait set");
  }

  @Test
  void pastTheFirstQueueAFlowWaitsForItsRateButNotLong() {
    Connections waiting = new Connections(1000, 100_000, 1 << 20, 300, timer);
    waiting.written(client, 2 << 20);
    assertEquals(
        Long.MAX_VALUE, waiting.writeBudget(client, 1 << 20, true), "no master: no waiting");
    waiting.coordinated(true);
    assertEquals(0, waiting.writeBudget(client, 1 << 20, false), "non-blocking: nothing now");
    long t0 = System.nanoTime();
    assertEquals(Long.MAX_VALUE, waiting.writeBudget(client, 1 << 20, true));
    double waited = (System.nanoTime() - t0) / 1e9;
    assertTrue(waited > 0.1 && waited < 1.0, "waited " + waited + " s for a rate that never came");
    waiting.coordinated(false);
    assertEquals(Long.MAX_VALUE, waiting.writeBudget(client, 1 << 20, false));
  }

  @Test
  void aRateFromTheMasterPacesTheFlow() {
    Connections paced = new Connections(1000, 0, 0, 0, timer);
    paced.written(client, 200_000);
    long id = paced.sweep().get(0).id;
    paced.pace(java.util.Map.of(id, 1e6));
    long first = paced.writeBudget(client, 1 << 20, false);
    assertTrue(first >= 16 * 1024 && first <= 64 * 1024, "the burst: " + first);
    paced.written(client, first);
    assertEquals(0, paced.writeBudget(client, 1 << 20, false), "the bucket is empty");
    paced.pace(java.util.Map.of());
    assertEquals(Long.MAX_VALUE, paced.writeBudget(client, 1 << 20, false), "rate cleared");
  }
}
