package org.coflow.stress.wire;

import com.google.protobuf.ByteString;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.coflow.api.proto.courier.v1.Auth;
import org.coflow.api.proto.courier.v1.Challenge;
import org.coflow.api.proto.courier.v1.Error;
import org.coflow.api.proto.courier.v1.Hello;
import org.coflow.api.proto.courier.v1.Role;
import org.coflow.courier.auth.Credentials;
import org.coflow.courier.auth.Proofs;
import org.coflow.courier.protocol.FrameType;

/**
 * The connecting side of the Courier handshake on a plain blocking socket: preamble, {@code HELLO},
 * the agent's {@code CHALLENGE} checked, {@code AUTH}, {@code HELLO_ACK}. For tools that need an
 * admitted connection they then drive byte by byte ({@code bench load}'s authenticated peer that
 * starts a frame and never finishes it).
 */
public final class RawHandshake {
  private RawHandshake() {}

  /** The agent answered with an ERROR frame. */
  public static final class Refused extends IOException {
    private final Error error;

    Refused(Error error) {
      super(error.getCode() + ": " + error.getMessage());
      this.error = error;
    }

    public Error error() {
      return error;
    }
  }

  /**
   * Completes the handshake on {@code socket} as {@code hostId} in {@code role}, proving {@code
   * credentials}.
   *
   * @throws Refused when the agent refuses (BUSY at a bound, FORBIDDEN, ...)
   * @throws IOException when the connection fails, or the agent's own proof does not hold
   */
  public static void authenticate(Socket socket, Credentials credentials, String hostId, Role role)
      throws IOException {
    Hello hello =
        Hello.newBuilder()
            .setRole(role)
            .setHostId(hostId)
            .setIdentity(credentials.identity())
            .setNonce(ByteString.copyFrom(Proofs.nonce()))
            .build();
    OutputStream out = socket.getOutputStream();
    out.write(RawFrames.concat(RawFrames.preamble(), RawFrames.frame(FrameType.HELLO, hello)));
    out.flush();
    DataInputStream in = new DataInputStream(socket.getInputStream());
    RawFrames.Reply first = read(in);
    Challenge c = first.challenge();
    if (c == null) {
      throw new IOException("expected CHALLENGE, got " + first.typeName());
    }
    byte[] nonce = c.getNonce().toByteArray();
    InetSocketAddress acceptor = (InetSocketAddress) socket.getRemoteSocketAddress();
    byte[] expected = Proofs.server(credentials.secret(), hello, nonce, c.getHostId(), acceptor);
    if (!Proofs.matches(expected, c.getProof().toByteArray())) {
      throw new IOException("the agent's proof does not hold");
    }
    byte[] proof = Proofs.client(credentials.secret(), hello, nonce, c.getHostId(), acceptor);
    out.write(
        RawFrames.frame(
            FrameType.AUTH, Auth.newBuilder().setProof(ByteString.copyFrom(proof)).build()));
    out.flush();
    RawFrames.Reply ack = read(in);
    if (ack.type() != FrameType.HELLO_ACK.id()) {
      throw new IOException("expected HELLO_ACK, got " + ack.typeName());
    }
  }

  /** Reads one frame; an ERROR frame is thrown as {@link Refused}. */
  private static RawFrames.Reply read(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 5 || length > 1 << 20) {
      throw new IOException(
          "the agent sent a frame of " + Integer.toUnsignedLong(length) + " bytes");
    }
    int type = in.readUnsignedByte();
    int headerLength = in.readInt();
    if (headerLength < 0 || headerLength > length - 5) {
      throw new IOException("the agent sent a header length of " + headerLength);
    }
    byte[] header = new byte[headerLength];
    in.readFully(header);
    in.skipNBytes(length - 5L - headerLength);
    RawFrames.Reply r = new RawFrames.Reply(type, header);
    if (r.error() != null) {
      throw new Refused(r.error());
    }
    return r;
  }
}
