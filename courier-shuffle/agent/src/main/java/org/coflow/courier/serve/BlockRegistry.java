package org.coflow.courier.serve;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.courier.protocol.ProtocolException;

/**
 * What this agent may serve: the block sets local processes registered. A block outside every
 * registered set is never served. Thread-safe.
 */
public final class BlockRegistry {
  private final Map<String, BlockSet> sets = new ConcurrentHashMap<>();
  private final java.util.List<java.nio.file.Path> roots;
  private volatile boolean refuseClientMapReduce;

  /** A registry that accepts any directory the agent can read. */
  public BlockRegistry() {
    this(java.util.List.of());
  }

  /**
   * A registry that accepts only directories inside {@code roots} (the agent's --dirs).
   *
   * @throws IllegalArgumentException if a root is not an existing directory
   */
  public BlockRegistry(java.util.List<java.nio.file.Path> roots) {
    java.util.List<java.nio.file.Path> real = new java.util.ArrayList<>();
    for (java.nio.file.Path r : roots) {
      try {
        real.add(r.toRealPath());
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "agent directory "
                + r
                + " does not exist: create it or "
                + "fix coflow.courier.dirs / --dirs");
      }
    }
    this.roots = java.util.List.copyOf(real);
  }

  /**
   * Registers (or re-registers, replacing) a Spark executor's files.
   *
   * @throws ProtocolException INVALID for a bad id, directory or algorithm
   */
  public String register(RegisterSpark req) {
    return add(new SparkBlockSet(req));
  }

  /**
   * Registers (or re-registers) a MapReduce job's map outputs, as a local client asked over the
   * wire. A job its NodeManager registered with the job's secret ({@link #registerSecured}) cannot
   * be replaced this way: whoever can reach the agent's port must not swap the secret out.
   */
  public String register(RegisterMapReduce req) {
    if (refuseClientMapReduce) {
      throw Dirs.forbidden(
          "this agent runs inside a NodeManager, which registers MapReduce jobs itself; "
              + "job "
              + req.getJobId()
              + " cannot be registered over a client connection");
    }
    MapReduceBlockSet set = new MapReduceBlockSet(req);
    BlockSet old = sets.get(set.id());
    if (old instanceof MapReduceBlockSet && ((MapReduceBlockSet) old).secured()) {
      throw Dirs.forbidden(
          set.id()
              + " was registered by its NodeManager with the job's secret; "
              + "it cannot be registered again over a client connection");
    }
    return add(set);
  }

  /** From now on, MapReduce jobs are registered only in-process ({@link #registerSecured}). */
  public void refuseClientMapReduce() {
    refuseClientMapReduce = true;
  }

  /**
   * Registers a MapReduce job in-process, from the NodeManager that received its token: the request
   * must carry the shuffle secret, and every fetch of its blocks is then authenticated.
   */
  public String registerSecured(RegisterMapReduce req) {
    if (req.getShuffleSecret().isEmpty()) {
      throw new IllegalArgumentException(
          "a secured registration of " + req.getJobId() + " needs the job's shuffle secret");
    }
    return add(new MapReduceBlockSet(req));
  }

  private String add(BlockSet set) {
    if (!roots.isEmpty()) {
      for (java.nio.file.Path d : set.dirs()) {
        if (roots.stream().noneMatch(d::startsWith)) {
          throw Dirs.invalid(
              set.id()
                  + ": directory "
                  + d
                  + " is outside the agent's directories "
                  + roots
                  + " (coflow.courier.dirs)");
        }
      }
    }
    sets.put(set.id(), set);
    return set.id();
  }

  /** Forgets a set (its application or job ended); unknown ids are ignored. */
  public void unregister(String blockSet) {
    sets.remove(blockSet);
  }

  /**
   * @throws ProtocolException FORBIDDEN for missing or wrong credentials, NOT_FOUND for an
   *     unregistered set or a missing block, INVALID for a malformed name, CORRUPT for an
   *     inconsistent index
   */
  public BlockSegment resolve(BlockRef ref) throws IOException {
    BlockSet set = sets.get(ref.getBlockSet());
    if (set == null) {
      throw Dirs.notFound("block set '" + ref.getBlockSet() + "' is not registered on this agent");
    }
    return set.resolve(ref.getBlock(), ref.getAuth());
  }

  /**
   * Whether a client may have a fetched block written to {@code target}: an absolute path whose
   * directory lies inside a registered set's directories (the agent never writes elsewhere).
   */
  public boolean mayWrite(java.nio.file.Path target) {
    if (!target.isAbsolute() || target.getFileName() == null) {
      return false;
    }
    java.nio.file.Path parent;
    try {
      parent = target.getParent().toRealPath();
    } catch (IOException e) {
      return false;
    }
    if (java.nio.file.Files.isDirectory(target) || java.nio.file.Files.isSymbolicLink(target)) {
      return false;
    }
    for (BlockSet s : sets.values()) {
      for (java.nio.file.Path d : s.dirs()) {
        if (parent.startsWith(d)) {
          return true;
        }
      }
    }
    return false;
  }

  public int size() {
    return sets.size();
  }
}
