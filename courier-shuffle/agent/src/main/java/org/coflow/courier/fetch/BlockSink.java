package org.coflow.courier.fetch;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import org.coflow.api.proto.courier.v1.ErrorCode;

/**
 * Where a fetched block's bytes go. Called on one thread (the connection's event loop), in order:
 * {@link #start}, {@link #write} for each chunk, then {@link #complete} or {@link #fail} exactly
 * once ({@link #fail} may come without {@link #start}). Only {@link #complete} means the bytes were
 * verified against the block's checksum; after {@link #fail} the sink must discard what it got.
 */
public interface BlockSink {
  void start(long length, long rawLength) throws IOException;

  /** The next bytes; {@code data} is only valid during the call (the caller releases it). */
  void write(ByteBuf data) throws IOException;

  void complete() throws IOException;

  void fail(ErrorCode code, String message);
}
