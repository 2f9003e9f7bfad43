package org.coflow.courier.security;

import io.netty.channel.nio.NioEventLoopGroup;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.coflow.courier.testing.LeakCheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** What every attack test has: a temporary root, client event loops, leak detection. */
@ExtendWith(LeakCheck.class)
abstract class AttackBase {
  @TempDir Path tmp;
  final NioEventLoopGroup group = new NioEventLoopGroup(2);

  @AfterEach
  void stopGroup() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
