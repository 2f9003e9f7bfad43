package org.coflow.stress.fuzz;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.coflow.api.proto.courier.v1.Auth;
import org.coflow.api.proto.courier.v1.BlockEnd;
import org.coflow.api.proto.courier.v1.BlockError;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.BlockRequest;
import org.coflow.api.proto.courier.v1.BlockStart;
import org.coflow.api.proto.courier.v1.Cancel;
import org.coflow.api.proto.courier.v1.Challenge;
import org.coflow.api.proto.courier.v1.Chunk;
import org.coflow.api.proto.courier.v1.Credit;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.api.proto.courier.v1.FetchRequest;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.HelloAck;
import org.coflow.api.proto.courier.v1.Priority;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.api.proto.courier.v1.Registered;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.Proofs;
import org.coflow.courier.auth.Secret;
import org.coflow.courier.protocol.FrameType;
import org.coflow.stress.wire.RawFrames;

/**
 * Generates the fuzz's inputs from a seed: input {@code i} depends on the seed and {@code i} only,
 * so a failing input is reproduced by its index whatever ran before it. Each comes from a family of
 * the handshake's and the frame decoder's edges (see {@link #next}), valid sequences mutated
 * structurally, and a third of the time mutated again byte by byte ({@link ByteMutations#havoc}).
 *
 * <p>Answers to the agent's challenge may be derived from the cluster secret (a proof replayed from
 * another connection, one bound to another host, role, identity or acceptor address, one a bit
 * off), since those are what an eavesdropper, a relay or a confused peer can send; none is ever the
 * proof the challenge asks for ({@link Exchange} scrubs the exact proof from every answer as well),
 * so a fuzzed connection that is admitted is an authentication bypass.
 */
final class FuzzInputs {
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  /** Lengths at and around every bound the decoder has, and the unsigned int's extremes. */
  static final long[] LENGTHS = {
    0,
    1,
    4,
    5,
    6,
    8,
    9,
    16,
    127,
    128,
    255,
    256,
    (16 << 10) - 1,
    16 << 10,
    (16 << 10) + 1,
    (64 << 10) - 1,
    64 << 10,
    (64 << 10) + 1,
    1 << 20,
    (1 << 20) + 1,
    (16 << 20) - 1,
    16 << 20,
    (16 << 20) + 1,
    0x7fffffffL,
    0x80000000L,
    0xfffffffeL,
    0xffffffffL
  };

  static final int[] TYPES_KNOWN = {1, 2, 3, 4, 5, 10, 11, 12, 20, 21, 30, 31, 32, 33, 34, 35, 36};

  private final long seed;
  private final String hostId;
  private final InetSocketAddress agent;
  private final String agentAddress;
  private final String blockSet;
  private final String servedDir;
  private final Credentials credentials;
  private final Secret otherSecret;

  /**
   * @param hostId the agent's host id (what a local client's HELLO must name)
   * @param agent the agent's address, which its proofs bind and fetch requests name
   * @param blockSet a block set the agent serves, requested by frames sent before admission
   * @param servedDir its directory, named by registrations sent before admission
   * @param credentials the cluster secret, from which replayed and mis-bound proofs are derived
   */
  FuzzInputs(
      long seed,
      String hostId,
      InetSocketAddress agent,
      String blockSet,
      String servedDir,
      Credentials credentials) {
    this.seed = seed;
    this.hostId = hostId;
    this.agent = agent;
    this.agentAddress = agent.getHostString() + ":" + agent.getPort();
    this.blockSet = blockSet;
    this.servedDir = servedDir;
    this.credentials = credentials;
    byte[] other = new byte[32];
    new SplittableRandom(seed ^ 0x5EC2E7L).nextBytes(other);
    this.otherSecret = Secret.of(other, "the fuzz's wrong secret");
  }

  /** Input {@code index}. */
  FuzzInput next(long index) {
    SplittableRandom r = new SplittableRandom(seed + GOLDEN * (index + 1));
    int pick = r.nextInt(100);
    if (pick < 14) {
      return wrongProof(r);
    }
    String kind;
    byte[] bytes;
    if (pick < 19) {
      kind = "garbage";
      bytes = ByteMutations.random(r, r.nextInt(65));
    } else if (pick < 25) {
      kind = "preamble";
      bytes = preamble(r);
    } else if (pick < 39) {
      kind = "hello";
      bytes = RawFrames.concat(RawFrames.preamble(), frame(FrameType.HELLO, hello(r, false)));
      if (r.nextInt(3) == 0) {
        bytes = RawFrames.concat(bytes, anyFrame(r));
      }
    } else if (pick < 51) {
      kind = "lengths";
      bytes = RawFrames.concat(RawFrames.preamble(), badLengths(r));
    } else if (pick < 56) {
      kind = "unknown_type";
      int type;
      do {
        type = r.nextInt(256);
      } while (FrameType.of(type) != null);
      bytes =
          RawFrames.concat(
              RawFrames.preamble(),
              RawFrames.frame(type, ByteMutations.random(r, r.nextInt(40)), new byte[0]));
    } else if (pick < 61) {
      kind = "body_on_bodyless";
      FrameType t =
          r.nextInt(2) == 0
              ? FrameType.HELLO
              : FrameType.values()[r.nextInt(FrameType.values().length)];
      MessageLite header = t == FrameType.HELLO ? hello(r, r.nextBoolean()) : premature(r, t);
      bytes =
          RawFrames.concat(
              RawFrames.preamble(),
              RawFrames.frame(
                  t.id(), header.toByteArray(), ByteMutations.random(r, 1 + r.nextInt(300))));
    } else if (pick < 69) {
      kind = "protobuf_garbage";
      int type = r.nextInt(3) == 0 ? TYPES_KNOWN[r.nextInt(TYPES_KNOWN.length)] : 1;
      bytes =
          RawFrames.concat(
              RawFrames.preamble(),
              RawFrames.frame(type, ByteMutations.protobufGarbage(r), new byte[0]));
    } else if (pick < 75) {
      kind = "auth_before_challenge";
      bytes = authBeforeChallenge(r);
    } else if (pick < 85) {
      kind = "premature";
      bytes = prematureSequence(r);
    } else if (pick < 90) {
      kind = "nul_strings";
      bytes = nulStrings(r);
    } else if (pick < 95) {
      kind = "large_announce";
      bytes = RawFrames.concat(RawFrames.preamble(), largeAnnounce(r));
    } else {
      kind = "server_frames";
      FrameType t =
          new FrameType[] {
                FrameType.CHALLENGE, FrameType.HELLO_ACK, FrameType.ERROR, FrameType.REGISTERED
              }
              [r.nextInt(4)];
      bytes = RawFrames.concat(RawFrames.preamble(), frame(t, premature(r, t)));
    }
    if (r.nextInt(3) == 0) {
      bytes = ByteMutations.havoc(r, bytes, 1 + r.nextInt(6));
      kind = kind + "+havoc";
    }
    boolean keepOpen = r.nextInt(kind.startsWith("large_announce") ? 2 : 10) == 0;
    return new FuzzInput(kind, ByteMutations.split(r, bytes), null, null, keepOpen);
  }

  /** A HELLO that earns a challenge, then an answer that proves nothing. */
  private FuzzInput wrongProof(SplittableRandom r) {
    boolean client = r.nextBoolean();
    Hello hello =
        Hello.newBuilder()
            .setRole(client ? Role.ROLE_CLIENT : Role.ROLE_AGENT)
            .setHostId(client ? hostId : "peer-" + r.nextInt(4))
            .setConnectionIndex(r.nextInt(3))
            .setIdentity(credentials.identity())
            .setNonce(ByteString.copyFrom(ByteMutations.random(r, Proofs.NONCE_BYTES)))
            .build();
    int mode = r.nextInt(17);
    long answerSeed = r.nextLong();
    FuzzInput.Answer answer =
        challenge -> {
          SplittableRandom a = new SplittableRandom(answerSeed);
          byte[] out = answerFor(a, mode, hello, challenge);
          if (a.nextInt(4) == 0) {
            out = RawFrames.concat(out, anyFrame(a));
          }
          return a.nextInt(6) == 0 ? ByteMutations.havoc(a, out, 1 + a.nextInt(4)) : out;
        };
    byte[] first = RawFrames.concat(RawFrames.preamble(), frame(FrameType.HELLO, hello));
    return new FuzzInput(
        "wrong_proof", ByteMutations.split(r, first), hello, answer, r.nextInt(10) == 0);
  }

  private byte[] answerFor(SplittableRandom a, int mode, Hello hello, Challenge c) {
    byte[] nonce = c.getNonce().toByteArray();
    String host = c.getHostId();
    Secret secret = credentials.secret();
    byte[] proof;
    switch (mode) {
      case 0 -> proof = ByteMutations.random(a, 32);
      case 1 -> proof = new byte[0];
      case 2 -> proof = ByteMutations.random(a, 1 + a.nextInt(100));
      case 3 -> {
        proof = Proofs.client(secret, hello, nonce, host, agent);
        proof[a.nextInt(proof.length)] ^= (byte) (1 << a.nextInt(8));
      }
      case 4 -> proof = Arrays.copyOf(Proofs.client(secret, hello, nonce, host, agent), 31);
      case 5 ->
          proof =
              RawFrames.concat(
                  Proofs.client(secret, hello, nonce, host, agent), ByteMutations.random(a, 1));
      case 6 -> proof = c.getProof().toByteArray(); // reflected
      case 7 ->
          proof =
              Proofs.client(secret, hello, ByteMutations.random(a, 32), host, agent); // replayed
      case 8 -> proof = Proofs.client(otherSecret, hello, nonce, host, agent);
      case 9 ->
          proof =
              Proofs.client(
                  secret, hello.toBuilder().setHostId(host + "x").build(), nonce, host, agent);
      case 10 ->
          proof =
              Proofs.client(
                  secret,
                  hello.toBuilder()
                      .setRole(
                          hello.getRole() == Role.ROLE_AGENT ? Role.ROLE_CLIENT : Role.ROLE_AGENT)
                      .build(),
                  nonce,
                  host,
                  agent);
      case 11 ->
          proof =
              Proofs.client(
                  secret, hello.toBuilder().setIdentity("spark:app").build(), nonce, host, agent);
      case 12 -> proof = Proofs.server(secret, hello, nonce, host, agent);
      case 13 -> proof = Proofs.client(secret, hello, nonce, host + "-other", agent);
      case 14 -> {
        // What a relay at another address would pass on: bound to the address it was dialled at.
        proof =
            Proofs.client(
                secret,
                hello,
                nonce,
                host,
                new InetSocketAddress(
                    agent.getAddress(), agent.getPort() == 1 ? 2 : agent.getPort() - 1));
      }
      case 15 -> {
        // The right frame type, a header that is not an Auth message.
        return RawFrames.frame(FrameType.AUTH.id(), ByteMutations.protobufGarbage(a), new byte[0]);
      }
      default -> {
        // A proof sent as the wrong frame, or with a body.
        byte[] p = ByteMutations.random(a, 32);
        byte[] header = Auth.newBuilder().setProof(ByteString.copyFrom(p)).build().toByteArray();
        return a.nextBoolean()
            ? RawFrames.frame(FrameType.CHALLENGE.id(), header, new byte[0])
            : RawFrames.frame(
                FrameType.AUTH.id(), header, ByteMutations.random(a, 1 + a.nextInt(64)));
      }
    }
    byte[] auth =
        frame(FrameType.AUTH, Auth.newBuilder().setProof(ByteString.copyFrom(proof)).build());
    return a.nextInt(8) == 0 ? RawFrames.concat(auth, auth) : auth;
  }

  /** A HELLO of any shape; {@code proving} ones name the cluster identity with a proper nonce. */
  private Hello hello(SplittableRandom r, boolean proving) {
    Hello.Builder b = Hello.newBuilder();
    int role = r.nextInt(10);
    boolean client = role < 5;
    if (role < 9) {
      b.setRole(client ? Role.ROLE_CLIENT : Role.ROLE_AGENT);
    } else {
      b.setRoleValue(new int[] {0, 3, 99, -1}[r.nextInt(4)]);
    }
    int host = r.nextInt(10);
    if (host < 7) {
      b.setHostId(client ? hostId : "peer-" + r.nextInt(4));
    } else {
      b.setHostId(oddString(r));
    }
    if (proving || r.nextInt(3) == 0) {
      b.setIdentity(credentials.identity())
          .setNonce(ByteString.copyFrom(ByteMutations.random(r, 32)));
    } else {
      String[] identities = {
        "", "", "Cluster", "cluster\0", "spark:app-1", "mr:job_1_0001", "anonymous"
      };
      b.setIdentity(r.nextInt(8) == 0 ? oddString(r) : identities[r.nextInt(identities.length)]);
      int[] nonces = {32, 0, 16, 31, 33, 64};
      b.setNonce(ByteString.copyFrom(ByteMutations.random(r, nonces[r.nextInt(nonces.length)])));
    }
    if (r.nextInt(4) == 0) {
      b.setConnectionIndex(r.nextInt());
    }
    return b.build();
  }

  private static String oddString(SplittableRandom r) {
    switch (r.nextInt(6)) {
      case 0:
        return "";
      case 1:
        return "exec\0-1";
      case 2:
        return "\0";
      case 3:
        return "h".repeat(257);
      case 4:
        return "h\u00e9\u4e2d\ud83d\ude00";
      default:
        return "x".repeat(r.nextInt(2000));
    }
  }

  private byte[] preamble(SplittableRandom r) {
    switch (r.nextInt(6)) {
      case 0:
        return RawFrames.preamble(0x43464C58, 2); // one bit off the magic
      case 1:
        return RawFrames.preamble(0x43464C57, new int[] {0, 1, 3, -1, 0x7fffffff}[r.nextInt(5)]);
      case 2:
        return Arrays.copyOf(RawFrames.preamble(), 1 + r.nextInt(7));
      case 3:
        return RawFrames.preamble();
      case 4:
        return RawFrames.concat(RawFrames.preamble(), ByteMutations.random(r, 1 + r.nextInt(64)));
      default:
        return RawFrames.concat(ByteMutations.random(r, 8), frame(FrameType.HELLO, hello(r, true)));
    }
  }

  /** A frame whose length or header length disagree with what it carries or exceed a bound. */
  private byte[] badLengths(SplittableRandom r) {
    byte[] header = hello(r, r.nextBoolean()).toByteArray();
    int type = r.nextInt(4) == 0 ? TYPES_KNOWN[r.nextInt(TYPES_KNOWN.length)] : 1;
    long length = 1L + 4 + header.length;
    int headerLength = header.length;
    switch (r.nextInt(6)) {
      case 0 -> length = LENGTHS[r.nextInt(LENGTHS.length)];
      case 1 -> headerLength = (int) LENGTHS[r.nextInt(LENGTHS.length)];
      case 2 -> headerLength = -1 - r.nextInt(Integer.MAX_VALUE);
      case 3 -> length += r.nextInt(2) == 0 ? -1 - r.nextInt(5) : 1 + r.nextInt(5);
      case 4 -> {
        // A well-formed frame cut short.
        byte[] whole = RawFrames.frame(type, header, new byte[0]);
        return Arrays.copyOf(whole, r.nextInt(whole.length));
      }
      default -> {
        length = LENGTHS[r.nextInt(LENGTHS.length)];
        headerLength = (int) LENGTHS[r.nextInt(LENGTHS.length)];
      }
    }
    return RawFrames.frame(length, type, headerLength, header, new byte[0]);
  }

  /** A frame that announces many bytes and sends a few of them. */
  private byte[] largeAnnounce(SplittableRandom r) {
    long length = LENGTHS[r.nextInt(LENGTHS.length)];
    int type = r.nextBoolean() ? 1 : TYPES_KNOWN[r.nextInt(TYPES_KNOWN.length)];
    byte[] header = hello(r, true).toByteArray();
    int sent = (int) Math.min(Math.max(0, length - 5 - header.length), r.nextInt(16 << 10));
    return RawFrames.frame(length, type, header.length, header, ByteMutations.random(r, sent));
  }

  private byte[] authBeforeChallenge(SplittableRandom r) {
    byte[] auth =
        frame(
            FrameType.AUTH,
            Auth.newBuilder()
                .setProof(ByteString.copyFrom(ByteMutations.random(r, r.nextInt(3) * 16)))
                .build());
    switch (r.nextInt(3)) {
      case 0:
        return RawFrames.concat(RawFrames.preamble(), auth);
      case 1:
        return RawFrames.concat(
            RawFrames.preamble(), frame(FrameType.HELLO, hello(r, false)), auth);
      default:
        return RawFrames.concat(RawFrames.preamble(), frame(FrameType.HELLO, hello(r, true)), auth);
    }
  }

  /** Frames of an admitted peer, sent before, instead of or right after an unanswered HELLO. */
  private byte[] prematureSequence(SplittableRandom r) {
    List<byte[]> parts = new ArrayList<>();
    parts.add(RawFrames.preamble());
    int where = r.nextInt(3);
    if (where > 0) {
      parts.add(frame(FrameType.HELLO, hello(r, where == 2)));
    }
    for (int n = 1 + r.nextInt(3); n > 0; n--) {
      parts.add(anyFrame(r));
    }
    return RawFrames.concat(parts.toArray(new byte[0][]));
  }

  private byte[] nulStrings(SplittableRandom r) {
    if (r.nextBoolean()) {
      Hello h =
          hello(r, r.nextBoolean()).toBuilder()
              .setHostId(r.nextBoolean() ? hostId + "\0" : "\0" + hostId)
              .build();
      return RawFrames.concat(RawFrames.preamble(), frame(FrameType.HELLO, h));
    }
    RegisterSpark reg =
        RegisterSpark.newBuilder()
            .setAppId("app\0x")
            .setExecId("0")
            .addLocalDirs(servedDir + "\0/../..")
            .setSubDirsPerLocalDir(1)
            .build();
    return RawFrames.concat(
        RawFrames.preamble(),
        frame(FrameType.HELLO, hello(r, true)),
        frame(FrameType.REGISTER_SPARK, reg));
  }

  /** A well-formed frame of a random type with a plausible header. */
  private byte[] anyFrame(SplittableRandom r) {
    FrameType t = FrameType.values()[r.nextInt(FrameType.values().length)];
    MessageLite header = t == FrameType.HELLO ? hello(r, r.nextBoolean()) : premature(r, t);
    byte[] body = t.hasBody() ? ByteMutations.random(r, 1 + r.nextInt(512)) : new byte[0];
    return RawFrames.frame(t.id(), header.toByteArray(), body);
  }

  /** A header an admitted peer (or the agent) would send, naming this agent's real block set. */
  private MessageLite premature(SplittableRandom r, FrameType t) {
    BlockRef ref = BlockRef.newBuilder().setBlockSet(blockSet).setBlock("shuffle_0_0_0").build();
    switch (t) {
      case HELLO_ACK:
        return HelloAck.newBuilder().setHostId(hostId).setChunkSize(65536).build();
      case ERROR:
        return Error.newBuilder().setCode(ErrorCode.ERROR_CODE_BUSY).setMessage("busy").build();
      case CHALLENGE:
        return Challenge.newBuilder()
            .setNonce(ByteString.copyFrom(ByteMutations.random(r, 32)))
            .setHostId(hostId)
            .setProof(ByteString.copyFrom(ByteMutations.random(r, 32)))
            .build();
      case AUTH:
        return Auth.newBuilder().setProof(ByteString.copyFrom(ByteMutations.random(r, 32))).build();
      case REGISTER_SPARK:
        return RegisterSpark.newBuilder()
            .setAppId("fuzz")
            .setExecId(Integer.toString(r.nextInt(10)))
            .addLocalDirs(servedDir)
            .setSubDirsPerLocalDir(1)
            .build();
      case REGISTER_MAPREDUCE:
        return RegisterMapReduce.newBuilder()
            .setJobId("job_1_0001")
            .setUser("u")
            .addLocalDirs(servedDir)
            .setShuffleSecret(ByteString.copyFrom(ByteMutations.random(r, 16)))
            .build();
      case REGISTERED:
        return Registered.newBuilder().setBlockSet(blockSet).build();
      case FETCH_REQUEST:
        return FetchRequest.newBuilder()
            .setRequestId(r.nextInt(4))
            .setCoflowId("c")
            .addBlocks(
                RemoteBlock.newBuilder()
                    .setHostId(hostId)
                    .setAgentAddress(agentAddress)
                    .setBlock(ref)
                    .setSize(-1))
            .build();
      case BLOCK_REQUEST:
        return BlockRequest.newBuilder()
            .setStreamId(r.nextInt(4))
            .setCoflowId("c")
            .setBlock(ref)
            .setDstHost("peer-1")
            .setCredit(1 << 20)
            .build();
      case CHUNK:
        return Chunk.newBuilder().setStreamId(1).setOffset(0).build();
      case BLOCK_END:
        return BlockEnd.newBuilder().setStreamId(1).setLength(1).build();
      case BLOCK_ERROR:
        return BlockError.newBuilder().setStreamId(1).setCode(ErrorCode.ERROR_CODE_IO).build();
      case CREDIT:
        return Credit.newBuilder().setStreamId(1).setBytes(Long.MAX_VALUE).build();
      case BLOCK_START:
        return BlockStart.newBuilder().setStreamId(1).setLength(1).build();
      case CANCEL:
        return Cancel.newBuilder().setStreamId(1).build();
      case PRIORITY:
        return Priority.newBuilder().setCoflowId("c").setPriority(-1).build();
      default:
        return hello(r, true);
    }
  }

  private static byte[] frame(FrameType type, MessageLite header) {
    return RawFrames.frame(type, header);
  }
}
