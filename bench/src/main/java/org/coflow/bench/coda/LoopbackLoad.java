package org.coflow.bench.coda;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child JVM of {@code bin/coflow bench coda-agent} (JDK only, so that it runs as well with as
 * without the coda-agent): N loopback TCP connections kept full by one NIO selector thread that
 * writes 64 KiB direct buffers without blocking, as a Netty event loop does (up to 16 writes per
 * turn; a write of 0 bytes asks for {@code OP_WRITE} through {@link SelectionKey#interestOps(int)},
 * a turn that used up its 16 writes drops {@code OP_WRITE} and flushes again after the selected
 * keys), and drained by a second selector thread that reads and discards. After a warm-up, it
 * measures a window and prints one line ({@value #PREFIX} followed by {@code key=value} fields):
 * the bytes read in the window, its length, the process CPU time in it, and the parts of that CPU
 * spent by the JIT compilers and by threads named {@code coda-agent*} (the agent's own).
 *
 * <p>Arguments: {@code CONNECTIONS SECONDS WARMUP_SECONDS}.
 */
public final class LoopbackLoad {
  /** What the result line starts with. */
  public static final String PREFIX = "loopback-load:";

  static final int BUFFER = 64 * 1024;

  /** Netty's default writeSpinCount and maxMessagesPerRead. */
  private static final int SPIN = 16;

  private final List<SocketChannel> senders = new ArrayList<>();
  private final List<SocketChannel> receivers = new ArrayList<>();
  private final AtomicLong read = new AtomicLong();
  private final AtomicLong written = new AtomicLong();
  private volatile boolean running = true;
  private volatile Throwable failure;

  private LoopbackLoad() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: LoopbackLoad CONNECTIONS SECONDS WARMUP_SECONDS");
      System.exit(2);
    }
    int n = Integer.parseInt(args[0]);
    double seconds = Double.parseDouble(args[1]);
    double warmup = Double.parseDouble(args[2]);
    LoopbackLoad load = new LoopbackLoad();
    try {
      load.connect(n);
      System.out.println(load.measure(warmup, seconds));
      System.out.flush();
    } finally {
      load.close();
    }
    if (load.failure != null) {
      load.failure.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  private void connect(int n) throws IOException {
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), n);
      InetSocketAddress at = (InetSocketAddress) server.getLocalAddress();
      for (int i = 0; i < n; i++) {
        SocketChannel s = SocketChannel.open(at);
        senders.add(s);
        receivers.add(server.accept());
      }
    }
    for (SocketChannel c : senders) {
      c.configureBlocking(false);
    }
    for (SocketChannel c : receivers) {
      c.configureBlocking(false);
    }
  }

  private String measure(double warmup, double seconds) throws Exception {
    Selector writeSelector = Selector.open();
    Selector readSelector = Selector.open();
    for (SocketChannel c : senders) {
      c.register(writeSelector, SelectionKey.OP_WRITE);
    }
    for (SocketChannel c : receivers) {
      c.register(readSelector, SelectionKey.OP_READ);
    }
    Thread writer = new Thread(() -> guard(() -> writeLoop(writeSelector)), "load-writer");
    Thread reader = new Thread(() -> guard(() -> readLoop(readSelector)), "load-reader");
    writer.start();
    reader.start();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    Thread.sleep((long) (warmup * 1000));
    long bytes0 = read.get();
    long written0 = written.get();
    Map<Long, Long> agent0 = agentThreadCpu();
    long jit0 = jitCpuNanos();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    Thread.sleep((long) (seconds * 1000));
    long t1 = System.nanoTime();
    long cpu1 = os.getProcessCpuTime();
    long jit1 = jitCpuNanos();
    Map<Long, Long> agent1 = agentThreadCpu();
    long bytes1 = read.get();
    long written1 = written.get();
    running = false;
    writeSelector.wakeup();
    readSelector.wakeup();
    writer.join(10_000);
    reader.join(10_000);
    long agentCpu = 0;
    for (Map.Entry<Long, Long> e : agent1.entrySet()) {
      agentCpu += e.getValue() - agent0.getOrDefault(e.getKey(), 0L);
    }
    return String.format(
        Locale.ROOT,
        "%s connections=%d bytes=%d written=%d nanos=%d cpu_ns=%d jit_cpu_ns=%d"
            + " agent_thread_cpu_ns=%d",
        PREFIX,
        senders.size(),
        bytes1 - bytes0,
        written1 - written0,
        t1 - t0,
        cpu1 - cpu0,
        jit1 - jit0,
        agentCpu);
  }

  private interface Loop {
    void run() throws IOException;
  }

  private void guard(Loop loop) {
    try {
      loop.run();
    } catch (Throwable t) {
      failure = t;
      running = false;
    }
  }

  private void writeLoop(Selector selector) throws IOException {
    ByteBuffer buf = ByteBuffer.allocateDirect(BUFFER);
    ArrayDeque<SelectionKey> flushLater = new ArrayDeque<>();
    while (running) {
      if (flushLater.isEmpty()) {
        selector.select(100);
      } else {
        selector.selectNow();
      }
      Iterator<SelectionKey> it = selector.selectedKeys().iterator();
      while (it.hasNext()) {
        SelectionKey k = it.next();
        it.remove();
        if (k.isValid() && k.isWritable()) {
          flush(k, buf, flushLater);
        }
      }
      for (int i = flushLater.size(); i > 0 && running; i--) {
        flush(flushLater.poll(), buf, flushLater);
      }
    }
    selector.close();
  }

  /** Netty's flush of a channel that always has more to write. */
  private void flush(SelectionKey k, ByteBuffer buf, ArrayDeque<SelectionKey> flushLater)
      throws IOException {
    SocketChannel ch = (SocketChannel) k.channel();
    long sum = 0;
    for (int i = 0; i < SPIN; i++) {
      buf.clear();
      int n = ch.write(buf);
      if (n == 0) {
        // The socket is full: wait for it to drain.
        written.addAndGet(sum);
        int ops = k.interestOps();
        if ((ops & SelectionKey.OP_WRITE) == 0) {
          k.interestOps(ops | SelectionKey.OP_WRITE);
        }
        return;
      }
      sum += n;
    }
    written.addAndGet(sum);
    // Spin count used up: let the others have a turn, then flush again.
    int ops = k.interestOps();
    if ((ops & SelectionKey.OP_WRITE) != 0) {
      k.interestOps(ops & ~SelectionKey.OP_WRITE);
    }
    flushLater.add(k);
  }

  private void readLoop(Selector selector) throws IOException {
    ByteBuffer buf = ByteBuffer.allocateDirect(BUFFER);
    while (running) {
      selector.select(100);
      Iterator<SelectionKey> it = selector.selectedKeys().iterator();
      while (it.hasNext()) {
        SelectionKey k = it.next();
        it.remove();
        if (!k.isValid() || !k.isReadable()) {
          continue;
        }
        SocketChannel ch = (SocketChannel) k.channel();
        long sum = 0;
        for (int i = 0; i < SPIN; i++) {
          buf.clear();
          int n = ch.read(buf);
          if (n <= 0) {
            break;
          }
          sum += n;
          if (n < BUFFER) {
            break;
          }
        }
        read.addAndGet(sum);
      }
    }
    selector.close();
  }

  private void close() {
    running = false;
    for (SocketChannel c : senders) {
      closeQuietly(c);
    }
    for (SocketChannel c : receivers) {
      closeQuietly(c);
    }
  }

  private static void closeQuietly(SocketChannel c) {
    try {
      c.close();
    } catch (IOException e) {
      // leaving anyway
    }
  }

  /** CPU nanoseconds of each live thread named {@code coda-agent*}, by thread id. */
  private static Map<Long, Long> agentThreadCpu() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> out = new HashMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("coda-agent")) {
        long ns = threads.getThreadCpuTime(t.getId());
        if (ns >= 0) {
          out.put(t.getId(), ns);
        }
      }
    }
    return out;
  }

  /**
   * CPU of the JIT compiler threads so far, from {@code /proc/self/task/*}/stat (Linux; 0
   * elsewhere): they are not Java-visible threads. Clock ticks of 10 ms.
   */
  private static long jitCpuNanos() {
    Path tasks = Path.of("/proc/self/task");
    if (!Files.isDirectory(tasks)) {
      return 0;
    }
    long ticks = 0;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
      for (Path task : ds) {
        String line;
        try {
          line = Files.readString(task.resolve("stat"));
        } catch (IOException e) {
          continue; // the thread ended
        }
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open < 0 || close < open || !line.substring(open + 1, close).contains("CompilerThre")) {
          continue;
        }
        // After the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
        // utime stime
        String[] f = line.substring(close + 2).split(" ");
        ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
      }
    } catch (IOException e) {
      return 0;
    }
    return ticks * 10_000_000L;
  }
}
