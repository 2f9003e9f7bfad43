package org.coflow.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.coflow.api.proto.v1.AgentServiceGrpc;
import org.coflow.api.proto.v1.FlowReport;
import org.coflow.api.proto.v1.FlowSpec;
import org.coflow.api.proto.v1.OpenSessionRequest;
import org.coflow.api.proto.v1.ProtocolVersion;
import org.coflow.api.proto.v1.ReportAck;
import org.coflow.api.proto.v1.ReportBatch;
import org.coflow.master.service.MasterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Memory attacks on a master in its own JVM with a 96 MiB heap, as an operator would run a small
 * one: the attack passes only if the process stays up, says nothing of running out of memory, and
 * still serves a newcomer and its HTTP API afterwards.
 */
class SmallHeapMasterTest {
  @TempDir Path tmp;

  @Test
  void sessionsThatEachKeepTheirBudgetCannotExhaustTheHeapTogether() throws Exception {
    Path log = tmp.resolve("master.log");
    Process master =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m",
                "-cp",
                System.getProperty("java.class.path"),
                SmallHeapMaster.class.getName())
            .redirectError(log.toFile())
            .start();
    ManagedChannel channel = null;
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(master.getInputStream(), StandardCharsets.UTF_8));
      String ready = CompletableFuture.supplyAsync(() -> readLine(out)).get(60, TimeUnit.SECONDS);
      assertTrue(ready != null && ready.startsWith("ready "), "the master did not start: " + ready);
      String[] ports = ready.split(" ");
      channel =
          ManagedChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(ports[1]))
              .usePlaintext()
              .maxInboundMessageSize(64 << 20)
              .build();
      AgentServiceGrpc.AgentServiceBlockingStub agents = AgentServiceGrpc.newBlockingStub(channel);

      // Forty sessions (from loopback, where the per-address session cap does not apply) each
      // keep within their own 8 MiB of names and attributes: 240 MiB counted together, more than
      // the master's 96 MiB heap.
      String pad = "v".repeat(508);
      long sessionBudget = MasterConfig.MAX_SESSION_BYTES.defaultValue();
      long flowBytes = 2L * 64 * 1024 + 1024; // the attributes, and the names around them
      List<Status> refusals = new ArrayList<>();
      long accepted = 0;
      for (int n = 0; n < 40; n++) {
        String host = "bloater-" + n;
        String session =
            agents.withDeadlineAfter(30, TimeUnit.SECONDS).openSession(open(host)).getSessionId();
        ReportStream reports = new ReportStream(channel);
        for (int b = 0; (b + 1) * 16 * flowBytes <= sessionBudget; b++) {
          ReportBatch.Builder batch = ReportBatch.newBuilder().setSessionId(session).setSeq(b + 1);
          for (int i = 0; i < 16; i++) {
            FlowReport.Builder f = flow(b * 16 + i, host);
            for (int a = 0; a < 64; a++) {
              f.getSpecBuilder().putAttributes(String.format("%04d", a) + pad, pad + "abcd");
            }
            batch.addFlows(f);
          }
          Object answer = reports.send(batch.build());
          if (answer instanceof Status st) {
            refusals.add(st);
            break;
          }
          accepted += 16;
        }
      }
      assertTrue(master.isAlive(), "the master died: " + Files.readString(log));
      String said = Files.readString(log);
      assertTrue(!said.contains("OutOfMemoryError"), "the master ran out of memory:\n" + said);
      assertTrue(!refusals.isEmpty(), accepted + " flows of 128 KiB each were all accepted");
      for (Status st : refusals) {
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, st.getCode(), st.toString());
        assertTrue(st.getDescription().contains("coflow.master.maxBytes="), st.toString());
      }

      // Afterwards a newcomer still reports, and the HTTP API still answers.
      String good =
          agents.withDeadlineAfter(30, TimeUnit.SECONDS).openSession(open("good")).getSessionId();
      Object ack =
          new ReportStream(channel)
              .send(
                  ReportBatch.newBuilder()
                      .setSessionId(good)
                      .setSeq(1)
                      .addFlows(flow(1, "good"))
                      .build());
      assertTrue(ack instanceof ReportAck, ack.toString());
      HttpResponse<String> state =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports[2] + "/api/state"))
                      .timeout(Duration.ofSeconds(30))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, state.statusCode(), state.body());
      assertTrue(state.body().contains("good"), "the newcomer is not in the state");
      said = Files.readString(log);
      assertTrue(!said.contains("OutOfMemoryError"), "the master ran out of memory:\n" + said);
    } finally {
      if (channel != null) {
        channel.shutdownNow();
      }
      master.getOutputStream().close();
      if (!master.waitFor(20, TimeUnit.SECONDS)) {
        master.destroyForcibly();
      }
    }
  }

  private static String readLine(BufferedReader in) {
    try {
      return in.readLine();
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }

  private static OpenSessionRequest open(String host) {
    return OpenSessionRequest.newBuilder()
        .setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1)
        .setHostId(host)
        .setEngineAddress("engine-of-" + host)
        .build();
  }

  private static FlowReport.Builder flow(long id, String src) {
    return FlowReport.newBuilder()
        .setFlowId(id)
        .setSpec(FlowSpec.newBuilder().setCoflowId("c").setSrcHost(src).setDstHost("peer"))
        .setBytesRemaining(1 << 20);
  }
}
