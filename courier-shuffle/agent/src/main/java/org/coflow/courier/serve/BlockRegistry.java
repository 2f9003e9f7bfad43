package org.coflow.courier.serve;

import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.courier.protocol.ProtocolException;

/**
 * What this agent may serve and write: the block sets local processes registered, each owned by the
 * identity that registered it (docs/security.md). Everything lies inside the agent's roots (its
 * configured directories; none means nothing is served or written). A set may be replaced only by
 * its owner; a client may have fetched blocks written only into a set it owns. Thread-safe.
 */
public final class BlockRegistry {
  /** The owner of what the process hosting the agent registers in-process. */
  public static final String IN_PROCESS = "(in-process)";

  /** The most sets one agent serves at once (each costs a little memory). */
  static final int MAX_SETS = 65_536;

  /**
   * The most sets one identity may have registered at once, so that no one fills the registry for
   * the others (an executor registers one, a NodeManager one per running job).
   */
  static final int MAX_SETS_PER_OWNER = 4_096;

  /**
   * How an anonymous client's principal begins ({@code anonymous#N@address}): one connection of an
   * agent without secrets. A stranger could open connection after connection, so the anonymous
   * clients of one address also share {@link #MAX_SETS_PER_ANONYMOUS_ADDRESS}.
   */
  public static final String ANONYMOUS = "anonymous#";

  /** What the anonymous clients of one address may hold together: a quarter of the registry. */
  static final int MAX_SETS_PER_ANONYMOUS_ADDRESS = MAX_SETS / 4;

  private final Map<String, Owned> sets = new ConcurrentHashMap<>();
  private final List<Path> roots;

  /** The bounds above (smaller in tests). */
  private final int maxSets;

  private final int maxPerOwner;
  private final int maxPerAnonymousAddress;
  private volatile boolean refuseClientRegistrations;

  private static final class Owned {
    final BlockSet set;
    final String owner;

    Owned(BlockSet set, String owner) {
      this.set = set;
      this.owner = owner;
    }
  }

  /**
   * A registry that accepts only directories inside {@code roots}; with no roots it accepts none.
   *
   * @throws IllegalArgumentException if a root is not an existing directory
   */
  public BlockRegistry(List<Path> roots) {
    this(roots, MAX_SETS, MAX_SETS_PER_OWNER, MAX_SETS_PER_ANONYMOUS_ADDRESS);
  }

  BlockRegistry(List<Path> roots, int maxSets, int maxPerOwner, int maxPerAnonymousAddress) {
    this.maxSets = maxSets;
    this.maxPerOwner = maxPerOwner;
    this.maxPerAnonymousAddress = maxPerAnonymousAddress;
    List<Path> real = new ArrayList<>();
    for (Path r : roots) {
      try {
        real.add(r.toRealPath());
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "agent directory "
                + r
                + " does not exist: create it or fix coflow.courier.dirs / --dirs");
      }
    }
    this.roots = List.copyOf(real);
  }

  /** The agent's roots (real paths). */
  public List<Path> roots() {
    return roots;
  }

  /**
   * Registers (or, for the same owner, re-registers) a Spark executor's files.
   *
   * @param owner the registering identity (a connection's principal, or {@link #IN_PROCESS})
   * @throws ProtocolException INVALID for a bad id, directory or algorithm, FORBIDDEN when another
   *     identity owns the set or this agent takes no registrations from clients
   */
  public Registration register(RegisterSpark req, String owner) {
    return add(new SparkBlockSet(req, roots), owner);
  }

  /** Registers a MapReduce job's map outputs without a secret (a standalone agent's client). */
  public Registration register(RegisterMapReduce req, String owner) {
    if (!req.getShuffleSecret().isEmpty() && !IN_PROCESS.equals(owner)) {
      throw Dirs.forbidden(
          "job "
              + req.getJobId()
              + ": a registration with the job's secret is taken only in-process, from the "
              + "NodeManager that received the job's token");
    }
    return add(new MapReduceBlockSet(req, roots), owner);
  }

  /** What a registration created: the set's id and whether its blocks are verified. */
  public static final class Registration {
    private final String id;
    private final boolean verified;

    Registration(String id, boolean verified) {
      this.id = id;
      this.verified = verified;
    }

    public String id() {
      return id;
    }

    public boolean verified() {
      return verified;
    }
  }

  /**
   * From now on, block sets are registered only in-process (a NodeManager's or an executor's
   * embedded agent): a client connection's registrations are refused.
   */
  public void refuseClientRegistrations() {
    refuseClientRegistrations = true;
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
    return add(new MapReduceBlockSet(req, roots), IN_PROCESS).id();
  }

  private Registration add(BlockSet set, String owner) {
    if (refuseClientRegistrations && !IN_PROCESS.equals(owner)) {
      throw Dirs.forbidden(
          "this agent takes registrations only from the process it runs in (a NodeManager's or "
              + "an executor's own agent); "
              + set.id()
              + " cannot be registered over a client connection");
    }
    if (roots.isEmpty()) {
      throw Dirs.forbidden(
          set.id()
              + ": this agent has no directories to serve (coflow.courier.dirs / --dirs is "
              + "empty), so it serves nothing");
    }
    for (Path d : set.dirs()) {
      if (SafeFiles.rootOf(roots, d) == null && !roots.contains(d)) {
        throw Dirs.invalid(
            set.id()
                + ": directory "
                + d
                + " is outside the agent's directories "
                + roots
                + " (coflow.courier.dirs)");
      }
    }
    for (Owned o : sets.values()) {
      if (!o.owner.equals(owner) && !o.set.id().equals(set.id()) && overlaps(o.set, set)) {
        throw Dirs.forbidden(
            set.id()
                + ": its directories overlap those of "
                + o.set.id()
                + ", which another identity registered; a set's directories are its own");
      }
    }
    if (!sets.containsKey(set.id()) && overQuota(owner) != null) {
      releaseVanished();
      String over = overQuota(owner);
      if (over != null) {
        throw new ProtocolException(
            org.coflow.api.proto.courier.v1.ErrorCode.ERROR_CODE_BUSY,
            over + "; unregister some first");
      }
    }
    if (sets.size() >= maxSets && !sets.containsKey(set.id())) {
      releaseVanished();
    }
    if (sets.size() >= maxSets && !sets.containsKey(set.id())) {
      throw new ProtocolException(
          org.coflow.api.proto.courier.v1.ErrorCode.ERROR_CODE_BUSY,
          "this agent serves " + sets.size() + " block sets, its most; unregister some first");
    }
    Owned now = new Owned(set, owner);
    Owned before = sets.merge(set.id(), now, (old, neu) -> old.owner.equals(owner) ? neu : old);
    if (before != now) {
      throw Dirs.forbidden(
          set.id()
              + " is registered by another identity; a set is replaced only by whoever "
              + "registered it");
    }
    return new Registration(set.id(), set.verified());
  }

  private static boolean overlaps(BlockSet a, BlockSet b) {
    for (Path x : a.dirs()) {
      for (Path y : b.dirs()) {
        if (x.startsWith(y) || y.startsWith(x)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Forgets a set (its application or job ended); unknown ids are ignored. */
  public void unregister(String blockSet) {
    sets.remove(blockSet);
  }

  /**
   * Forgets a set {@code owner} registered; an unknown set is no error.
   *
   * @throws ProtocolException FORBIDDEN if another identity registered it
   */
  public void unregister(String blockSet, String owner) {
    Owned o = sets.get(blockSet);
    if (o != null && !o.owner.equals(owner)) {
      throw Dirs.forbidden(
          blockSet
              + " is registered by another identity; only whoever registered it may remove it");
    }
    sets.remove(blockSet, o);
  }

  /** Why {@code owner} may not register one more set, or null if it may. */
  private String overQuota(String owner) {
    long mine = sets.values().stream().filter(o -> o.owner.equals(owner)).count();
    if (mine >= maxPerOwner) {
      return owner + " has " + mine + " block sets registered, the most one identity may hold";
    }
    String address = anonymousAddress(owner);
    if (address != null) {
      long there =
          sets.values().stream().filter(o -> address.equals(anonymousAddress(o.owner))).count();
      if (there >= maxPerAnonymousAddress) {
        return "anonymous clients from "
            + address
            + " have "
            + there
            + " block sets registered, the most they may hold together";
      }
    }
    return null;
  }

  /**
   * Forgets the sets none of whose directories exist any more: their application ended (Spark
   * deletes an executor's directories as the application ends, YARN an application's), so they
   * serve nothing. A set whose files outlive the process that registered them stays.
   */
  public void releaseVanished() {
    sets.values().removeIf(o -> o.set.dirs().stream().noneMatch(java.nio.file.Files::isDirectory));
  }

  /** The remote address (without port) of an anonymous principal, null for any other. */
  static String anonymousAddress(String owner) {
    if (!owner.startsWith(ANONYMOUS)) {
      return null;
    }
    String address = owner.substring(owner.indexOf('@') + 1);
    int port = address.lastIndexOf(':');
    return port > 0 ? address.substring(0, port) : address;
  }

  /**
   * Finds a block's bytes, with its data file open (the caller closes the segment).
   *
   * @throws ProtocolException FORBIDDEN for missing or wrong credentials, NOT_FOUND for an
   *     unregistered set or a missing block, INVALID for a malformed name, CORRUPT for an
   *     inconsistent index
   */
  public BlockSegment resolve(BlockRef ref) throws IOException {
    Owned o = sets.get(ref.getBlockSet());
    if (o == null) {
      throw Dirs.notFound("block set '" + ref.getBlockSet() + "' is not registered on this agent");
    }
    try {
      return o.set.resolve(ref.getBlock(), ref.getAuth());
    } catch (InvalidPathException e) {
      throw Dirs.invalid("block '" + ref.getBlock() + "' is not a valid name: " + e.getMessage());
    }
  }

  /**
   * Where {@code owner} may have a fetched block written: {@code target} must be an absolute,
   * normal path whose parent is one of the directories of a set {@code owner} registered.
   *
   * @return the target in its set's directory (as registered, links resolved), where the agent
   *     creates it
   * @throws ProtocolException INVALID naming the target and the rule otherwise
   */
  public Path checkWritable(String owner, String target) {
    Path t;
    try {
      t = Path.of(target);
    } catch (InvalidPathException e) {
      throw Dirs.invalid("target file '" + target.replace('\0', '?') + "' is not a valid path");
    }
    Path parent = t.getParent();
    if (t.isAbsolute() && parent != null && t.normalize().equals(t)) {
      Path real;
      try {
        real = parent.toRealPath();
      } catch (IOException e) {
        real = parent;
      }
      for (Owned o : sets.values()) {
        if (o.owner.equals(owner) && o.set.dirs().contains(real)) {
          return real.resolve(t.getFileName());
        }
      }
    }
    throw Dirs.invalid(
        "target file '"
            + target
            + "' is not an absolute, normal path directly inside a directory of a block set "
            + "this client registered");
  }

  public int size() {
    return sets.size();
  }
}
