package org.coflow.courier.fetch;

import io.netty.buffer.ByteBuf;

/**
 * Receives streamed blocks' bytes, each block's in order, with the block's index in its request.
 * Called on a connection's event loop: it must not block, and {@code data} is valid only during the
 * call.
 */
public interface BlockConsumer {
  void accept(int block, ByteBuf data);
}
