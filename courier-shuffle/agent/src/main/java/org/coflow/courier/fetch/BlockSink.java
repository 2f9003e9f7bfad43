package org.coflow.courier.fetch;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import org.coflow.courier.protocol.ProtocolException;

/**
 * Where a fetched block's bytes go. Called on one thread (the connection's event loop), in order:
 * {@link #start}, {@link #write} for each chunk, then {@link #complete} or {@link #fail} exactly
 * once ({@link #fail} may come without {@link #start}). Only {@link #complete} means the bytes were
 * verified against the block's checksum; after {@link #fail} the sink must discard what it got. A
 * failure carries its code, its message and, where there is one, the {@link Throwable} that caused
 * it; whoever owns the fetch logs it once (see {@link LocalFetches}).
 */
public interface BlockSink {
  void start(long length, long rawLength) throws IOException;

  /** The next bytes; {@code data} is only valid during the call (the caller releases it). */
  void write(ByteBuf data) throws IOException;

  void complete() throws IOException;

  void fail(ProtocolException error);
}
