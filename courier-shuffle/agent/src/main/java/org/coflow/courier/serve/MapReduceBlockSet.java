package org.coflow.courier.serve;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.coflow.api.proto.courier.v1.RegisterMapReduce;
import org.coflow.courier.protocol.BlockSetId;

/**
 * A MapReduce job's map outputs in a NodeManager's local directories: {@code
 * <dir>/usercache/<user>/appcache/<app>/output/<map attempt>/file.out} and {@code file.out.index},
 * the index holding per reduce partition (start offset, raw length, part length) as three longs,
 * then a CRC32 of those entries (Hadoop's {@code SpillRecord}). Block {@code <map
 * attempt>/<reduce>} is that partition's IFile segment, which ends with its own CRC32 (checksum
 * algorithm {@link Checksums#IFILE}).
 *
 * <p>Registered with the job's shuffle secret (by the NodeManager, which got it with the job's
 * token), every request must carry the HMAC-SHA1 a stock reducer would send to the NodeManager's
 * shuffle handler for that one map output, {@code
 * <port>/mapOutput?job=<job>&reduce=<r>&map=<attempt>} (Hadoop's {@code SecureShuffleUtils}); the
 * message is rebuilt here from the block's name and this NodeManager's port, never taken from the
 * request.
 */
final class MapReduceBlockSet implements BlockSet {
  private static final Pattern JOB = Pattern.compile("job_(\\d{1,20})_(\\d{1,10})");
  private static final Pattern BLOCK =
      Pattern.compile("(attempt_\\d{1,20}_\\d{1,10}_m_\\d{1,10}_\\d{1,5})/(\\d{1,9})");
  private static final int ENTRY = 24;

  private final String id;
  private final String user;
  private final String app;
  private final List<Path> dirs;

  /** The agent's roots, where every open starts its link-free walk. */
  private final List<Path> roots;

  private final String job;

  /** Null when registered without a secret (requests are then not authenticated). */
  private final SecretKeySpec secret;

  private final int shufflePort;

  MapReduceBlockSet(RegisterMapReduce req, List<Path> roots) {
    this.roots = roots;
    Matcher job = JOB.matcher(req.getJobId());
    if (!job.matches()) {
      throw Dirs.invalid("'" + req.getJobId() + "' is not a MapReduce job id (job_<cluster>_<n>)");
    }
    this.id = BlockSetId.mapReduce(req.getJobId()).toString();
    this.user = Dirs.segment(req.getUser(), id + ": user");
    this.app = "application_" + job.group(1) + "_" + job.group(2);
    this.dirs = Dirs.realDirs(req.getLocalDirsList(), id);
    this.job = req.getJobId();
    this.secret =
        req.getShuffleSecret().isEmpty()
            ? null
            : new SecretKeySpec(req.getShuffleSecret().toByteArray(), "HmacSHA1");
    this.shufflePort = req.getShufflePort();
  }

  /** Whether fetches must carry the job's HMAC. */
  boolean secured() {
    return secret != null;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public List<Path> dirs() {
    return dirs;
  }

  @Override
  public BlockSegment resolve(String block, String auth) throws IOException {
    Matcher m = BLOCK.matcher(block);
    if (!m.matches()) {
      throw Dirs.invalid(
          id + ": '" + block + "' is not a map output block (<map attempt id>/<reduce>)");
    }
    int reduce = Integer.parseInt(m.group(2));
    if (secret != null) {
      verify(m.group(1), reduce, auth, block);
    }
    // Each file of a map output lies in a local dir of its own choosing (Hadoop picks a dir per
    // file when a map spilled more than once), so the index and the data are found separately.
    // Both are opened once, without following links; the data is served from its handle.
    ByteBuffer entries;
    try (FileChannel index = find(m.group(1), "file.out.index", block)) {
      entries = readIndex(index, block);
    }
    FileChannel data = find(m.group(1), "file.out", block);
    try {
      return segment(data, entries, reduce, block);
    } catch (IOException | RuntimeException e) {
      data.close();
      throw e;
    }
  }

  private void verify(String attempt, int reduce, String auth, String block) {
    if (auth == null || auth.isEmpty()) {
      throw Dirs.forbidden(
          id
              + ": the request for "
              + block
              + " carries no shuffle HMAC; the job's "
              + "map outputs are served only to its own reducers");
    }
    byte[] expected =
        hmac(
            secret,
            shufflePort + "/mapOutput?job=" + job + "&reduce=" + reduce + "&map=" + attempt);
    if (!MessageDigest.isEqual(
        expected, auth.getBytes(java.nio.charset.StandardCharsets.US_ASCII))) {
      throw Dirs.forbidden(
          id
              + ": the shuffle HMAC of the request for "
              + block
              + " is wrong (not this job's "
              + "token, or another NodeManager's block)");
    }
  }

  /** Base64 of HMAC-SHA1({@code msg}), as Hadoop's SecureShuffleUtils.hashFromString makes it. */
  static byte[] hmac(SecretKeySpec key, String msg) {
    try {
      Mac mac = Mac.getInstance("HmacSHA1");
      mac.init(key);
      return Base64.getEncoder()
          .encode(mac.doFinal(msg.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA1 is not available in this JVM", e);
    }
  }

  /** The map attempt's file {@code name}, opened in whichever registered dir holds it. */
  private FileChannel find(String attempt, String name, String block) throws IOException {
    for (Path dir : dirs) {
      Path out =
          Dirs.inside(
              dir,
              dir.resolve("usercache")
                  .resolve(user)
                  .resolve("appcache")
                  .resolve(app)
                  .resolve("output")
                  .resolve(attempt),
              block);
      try {
        return SafeFiles.openRead(roots, out.resolve(name));
      } catch (NoSuchFileException e) {
        // in another dir, maybe
      }
    }
    throw Dirs.notFound(id + ": no map output for block " + block + " in " + dirs);
  }

  private ByteBuffer readIndex(FileChannel ch, String block) throws IOException {
    long size = ch.size();
    if (size < ENTRY + 8 || (size - 8) % ENTRY != 0 || size > (64 << 20)) {
      throw Dirs.corrupt(
          id + ": index of " + block + " has " + size + " bytes, not a spill record");
    }
    ByteBuffer entries = ByteBuffer.allocate((int) size);
    while (entries.hasRemaining()) {
      if (ch.read(entries, entries.position()) < 0) {
        throw Dirs.corrupt(id + ": index of " + block + " is truncated");
      }
    }
    return entries;
  }

  private BlockSegment segment(FileChannel data, ByteBuffer entries, int reduce, String block)
      throws IOException {
    int body = entries.capacity() - 8;
    CRC32 crc = new CRC32();
    crc.update(entries.array(), 0, body);
    if (crc.getValue() != entries.getLong(body)) {
      throw Dirs.corrupt(id + ": index of " + block + " fails its checksum");
    }
    int partitions = body / ENTRY;
    if (reduce >= partitions) {
      throw Dirs.notFound(
          id
              + ": block "
              + block
              + " names reduce partition "
              + reduce
              + " but the map output has "
              + partitions);
    }
    long start = entries.getLong(reduce * ENTRY);
    long raw = entries.getLong(reduce * ENTRY + 8);
    long part = entries.getLong(reduce * ENTRY + 16);
    long dataSize = data.size();
    if (start < 0 || part < 4 || raw < 0 || start + part > dataSize) {
      throw Dirs.corrupt(
          id
              + ": index of "
              + block
              + " gives ["
              + start
              + ", "
              + (start + part)
              + ") outside its data file of "
              + dataSize
              + " bytes");
    }
    ByteBuffer b = ByteBuffer.allocate(4);
    while (b.hasRemaining()) {
      if (data.read(b, start + part - 4 + b.position()) < 0) {
        throw Dirs.corrupt(id + ": data file of " + block + " is truncated");
      }
    }
    long trailer = b.getInt(0) & 0xffffffffL;
    return new BlockSegment(Path.of(id, block), data, start, part, Checksums.IFILE, trailer, raw);
  }
}
