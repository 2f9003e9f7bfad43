package org.coflow.courier.mapreduce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.nio.NioEventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import javax.crypto.SecretKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.CourierAgent;
import org.coflow.courier.client.BlockStream;
import org.coflow.courier.client.CourierClient;
import org.coflow.courier.protocol.BlockSetId;
import org.coflow.courier.protocol.HostPort;
import org.coflow.courier.protocol.ProtocolException;
import org.coflow.courier.transport.TransportContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NodeManager's handler, started for real (the stock ShuffleHandler and its agent), with two
 * applications' map outputs on disk: its agent serves a block only to a request carrying the HMAC a
 * reducer of that job computes with the job's token for that map output and reduce, exactly as
 * Hadoop's ShuffleHandler checks its URL; nothing is served otherwise.
 */
class ShuffleHandlerSecurityTest {
  private static final long CLUSTER = 1763780000000L;
  private static final String USER = "alice";

  @TempDir Path tmp;
  private CourierShuffleHandler handler;
  private NioEventLoopGroup group;
  private CourierClient client;
  private int shufflePort;
  private final Random random = new Random(5);

  @BeforeEach
  void start() throws Exception {
    Configuration conf = new Configuration(false);
    conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
    conf.set("yarn.nodemanager.local-dirs", tmp.resolve("nm").toString());
    conf.set("yarn.nodemanager.hostname", "127.0.0.1");
    conf.setInt(CourierMapReduceConfig.AGENT_PORT.key(), 0);
    handler = new CourierShuffleHandler();
    handler.init(conf);
    handler.start();
    assertNotNull(handler.agent(), "the agent started");
    shufflePort = handler.getConfig().getInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, -1);
    assertEquals("127.0.0.1:" + shufflePort, handler.hostId());
    group = new NioEventLoopGroup(1);
    String[] advertised =
        ReducerAgents.advertised(
            java.util.List.of(
                tmp.resolve("nm/usercache/" + USER + "/appcache/application_" + CLUSTER + "_0001")
                    .toString()));
    assertNotNull(advertised, "the agent's address is in the NodeManager's local dir");
    assertEquals(handler.hostId(), advertised[0]);
    agentAddress = HostPort.parse(advertised[1], "advertised agent").toAddress();
  }

  private java.net.InetSocketAddress agentAddress;

  /** Connects as a reducer of application {@code n}, proving its job token as reducers do. */
  private CourierClient reducer(int n, SecretKey key) throws Exception {
    return CourierClient.connect(
        new TransportContext(
            group,
            CourierAgent.MAX_FRAME,
            org.coflow.courier.auth.Credentials.of(
                org.coflow.courier.auth.Credentials.mapReduce(job(n)),
                org.coflow.courier.auth.Secret.ofEngine(key.getEncoded(), "job token"))),
        agentAddress,
        handler.hostId());
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
    if (handler != null) {
      handler.stop();
    }
  }

  private static ApplicationId app(int n) {
    return ApplicationId.newInstance(CLUSTER, n);
  }

  private static String job(int n) {
    return new JobID(Long.toString(CLUSTER), n).toString();
  }

  private static String attempt(int app, int map) {
    return String.format("attempt_%d_%04d_m_%06d_0", CLUSTER, app, map);
  }

  /** Starts application {@code n} on the handler with a fresh job token; returns its secret. */
  private SecretKey startApp(int n) throws IOException {
    byte[] password = new byte[20];
    random.nextBytes(password);
    Token<JobTokenIdentifier> token =
        new Token<>(
            new JobTokenIdentifier(new Text(job(n))).getBytes(),
            password,
            JobTokenIdentifier.KIND_NAME,
            new Text("shuffle"));
    handler.initializeApplication(
        new ApplicationInitializationContext(
            USER, app(n), ShuffleHandler.serializeServiceData(token)));
    return JobTokenSecretManager.createSecretKey(password);
  }

  /** Writes a map output of two partitions; returns the IFile segment of partition 0. */
  private byte[] writeMapOutput(int app, int map) throws IOException {
    Path out =
        Files.createDirectories(
            tmp.resolve(
                "nm/usercache/"
                    + USER
                    + "/appcache/application_"
                    + CLUSTER
                    + "_"
                    + String.format("%04d", app)
                    + "/output/"
                    + attempt(app, map)));
    byte[] s0 = segment(5000);
    byte[] s1 = segment(700);
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    data.write(s0);
    data.write(s1);
    Files.write(out.resolve("file.out"), data.toByteArray());
    ByteBuffer index = ByteBuffer.allocate(2 * 24 + 8);
    index.putLong(0).putLong(s0.length - 4).putLong(s0.length);
    index.putLong(s0.length).putLong(s1.length - 4).putLong(s1.length);
    CRC32 c = new CRC32();
    c.update(index.array(), 0, 48);
    index.putLong(c.getValue());
    Files.write(out.resolve("file.out.index"), index.array());
    return s0;
  }

  /** {@code n} random bytes and their CRC32, as an IFile segment ends. */
  private byte[] segment(int n) {
    byte[] b = new byte[n + 4];
    random.nextBytes(b);
    CRC32 c = new CRC32();
    c.update(b, 0, n);
    ByteBuffer.wrap(b, n, 4).putInt((int) c.getValue());
    return b;
  }

  /** The reducer's HMAC for one map output, as Hadoop's Fetcher computes it for its URL. */
  private String hmac(int app, int map, int reduce, SecretKey key) throws IOException {
    URL url =
        new URL(
            "http://127.0.0.1:"
                + shufflePort
                + "/mapOutput?job="
                + job(app)
                + "&reduce="
                + reduce
                + "&map="
                + attempt(app, map));
    return SecureShuffleUtils.hashFromString(SecureShuffleUtils.buildMsgFrom(url), key);
  }

  private byte[] fetch(String blockSet, String block, String auth) throws IOException {
    RemoteBlock b =
        RemoteBlock.newBuilder()
            .setHostId(handler.hostId())
            .setAgentAddress("127.0.0.1:" + handler.agent().address().getPort())
            .setBlock(BlockRef.newBuilder().setBlockSet(blockSet).setBlock(block).setAuth(auth))
            .setSize(-1)
            .build();
    try (BlockStream in = client.stream("test", b, 1 << 20)) {
      return in.readAllBytes();
    }
  }

  private ErrorCode refused(String blockSet, String block, String auth) {
    IOException e = assertThrows(IOException.class, () -> fetch(blockSet, block, auth));
    assertTrue(e.getCause() instanceof ProtocolException, e.toString());
    return ((ProtocolException) e.getCause()).code();
  }

  @Test
  void servesOnlyRequestsCarryingTheJobsHmac() throws Exception {
    SecretKey key1 = startApp(1);
    SecretKey key2 = startApp(2);
    // A process of the host that proves no job's token is not a client at all.
    ProtocolException anonymous =
        assertThrows(
            ProtocolException.class,
            () ->
                CourierClient.connect(
                    new TransportContext(group, CourierAgent.MAX_FRAME),
                    agentAddress,
                    handler.hostId()));
    assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, anonymous.code());
    client = reducer(1, key1);
    byte[] s0 = writeMapOutput(1, 3);
    writeMapOutput(2, 3);
    String set1 = BlockSetId.mapReduce(job(1)).toString();
    String block = attempt(1, 3) + "/0";

    assertArrayEquals(
        s0, fetch(set1, block, hmac(1, 3, 0, key1)), "the reducer's own HMAC: served");
    assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, refused(set1, block, ""), "no HMAC");
    assertEquals(
        ErrorCode.ERROR_CODE_FORBIDDEN,
        refused(set1, block, hmac(1, 3, 0, key2)),
        "another job's token");
    assertEquals(
        ErrorCode.ERROR_CODE_FORBIDDEN,
        refused(set1, block, hmac(1, 3, 1, key1)),
        "another reduce's HMAC");
    assertEquals(
        ErrorCode.ERROR_CODE_FORBIDDEN,
        refused(set1, block, "x" + hmac(1, 3, 0, key1)),
        "a mangled HMAC");
    // A reducer of job 1 naming job 2's output: its HMAC cannot be job 2's.
    assertEquals(
        ErrorCode.ERROR_CODE_FORBIDDEN,
        refused(BlockSetId.mapReduce(job(2)).toString(), attempt(2, 3) + "/0", hmac(2, 3, 0, key1)),
        "another application's output");

    // Nobody on the host can swap the secured registration for one without a secret.
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                client
                    .register(
                        RegisterMapReduce.newBuilder()
                            .setJobId(job(1))
                            .setUser(USER)
                            .addLocalDirs(tmp.resolve("nm").toString())
                            .build())
                    .get(10, TimeUnit.SECONDS));
    assertTrue(
        e.getCause().getMessage().contains("takes registrations only from the process it runs in"),
        e.toString());
    // A refused registration is a connection-level error: the agent closed that connection.
    client.close();
    client = reducer(1, key1);
    assertEquals(ErrorCode.ERROR_CODE_FORBIDDEN, refused(set1, block, ""), "still secured");

    // After the application ends, nothing of it is served, even with the right HMAC.
    handler.stopApplication(new ApplicationTerminationContext(app(1)));
    assertEquals(ErrorCode.ERROR_CODE_NOT_FOUND, refused(set1, block, hmac(1, 3, 0, key1)));
  }
}
