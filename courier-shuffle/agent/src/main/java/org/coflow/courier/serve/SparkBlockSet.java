package org.coflow.courier.serve;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.coflow.api.proto.courier.v1.RegisterSpark;
import org.coflow.courier.protocol.BlockSetId;

/**
 * A Spark executor's shuffle files, laid out as Spark's disk block manager writes them: file {@code
 * name} lives in {@code localDirs[h % n]/%02x((h / n) % subDirs)/name} with {@code h} the
 * non-negative hash of the name (what Spark's external shuffle service computes too). Block {@code
 * shuffle_S_M_R} is bytes {@code [index[R], index[R+1])} of {@code shuffle_S_M_0.data}; its
 * checksum is entry R of {@code shuffle_S_M_0.checksum.<algorithm>}. Block {@code
 * shuffle_S_M_R1_R2} (Spark's batch block id) is the segment {@code [index[R1], index[R2])}, the
 * partitions R1 to R2 - 1 of one map output served as one stream, with each partition's length and
 * checksum so that the receiver checks every partition at its end. A set registered without a
 * checksum algorithm (Spark writes no checksum files) is unverified: its blocks go out with
 * checksum NONE, since a checksum the agent took later would vouch for whatever the file holds by
 * then. Files are opened inside the registered directories without following links, once per
 * request; the data file is served from that handle.
 */
final class SparkBlockSet implements BlockSet {
  private static final Pattern BLOCK =
      Pattern.compile("shuffle_(\\d{1,9})_(\\d{1,18})_(\\d{1,9})(?:_(\\d{1,9}))?");

  private final String id;
  private final List<Path> dirs;

  /** The agent's roots, where every open starts its link-free walk. */
  private final List<Path> roots;

  private final int subDirs;
  private final String algorithm;

  SparkBlockSet(RegisterSpark req, List<Path> roots) {
    this.roots = roots;
    String app = Dirs.segment(req.getAppId(), "Spark app_id");
    String exec = Dirs.segment(req.getExecId(), "Spark exec_id");
    this.id = BlockSetId.spark(app, exec).toString();
    this.dirs = Dirs.realDirs(req.getLocalDirsList(), id);
    if (req.getSubDirsPerLocalDir() < 1 || req.getSubDirsPerLocalDir() > 1024) {
      throw Dirs.invalid(
          id
              + ": sub_dirs_per_local_dir must be 1..1024 (Spark's default is 64), got "
              + req.getSubDirsPerLocalDir());
    }
    this.subDirs = req.getSubDirsPerLocalDir();
    String alg = req.getChecksumAlgorithm();
    if (!alg.isEmpty() && !Checksums.known(alg)) {
      throw Dirs.invalid(
          id + ": unknown checksum_algorithm '" + alg + "' (ADLER32, CRC32, CRC32C or empty)");
    }
    this.algorithm = alg;
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
  public boolean verified() {
    return !algorithm.isEmpty();
  }

  @Override
  public BlockSegment resolve(String block, String auth) throws IOException {
    // Spark's shuffle files are served to the application's members (its agents), as by Spark's
    // own external shuffle service.
    Matcher m = BLOCK.matcher(block);
    if (!m.matches()) {
      throw Dirs.invalid(
          id
              + ": '"
              + block
              + "' is not a Spark shuffle block id (shuffle_<shuffle>_<map>_<reduce> or "
              + "shuffle_<shuffle>_<map>_<start>_<end>)");
    }
    String base = "shuffle_" + m.group(1) + "_" + m.group(2) + "_0";
    int first = Integer.parseInt(m.group(3));
    boolean segment = m.group(4) != null;
    int end = segment ? Integer.parseInt(m.group(4)) : first + 1;
    if (end <= first) {
      throw Dirs.invalid(
          id
              + ": block "
              + block
              + " names an empty range of partitions ["
              + first
              + ", "
              + end
              + ")");
    }
    int count = end - first;
    long[] offsets;
    try (FileChannel ch = open(base + ".index", block)) {
      long partitions = ch.size() / 8 - 1;
      if (ch.size() % 8 != 0 || partitions < 1) {
        throw Dirs.corrupt(
            id + ": index of " + block + " has " + ch.size() + " bytes, not a list of offsets");
      }
      if (end > partitions) {
        throw Dirs.notFound(
            id
                + ": block "
                + block
                + " names reduce partition "
                + (end - 1)
                + " but the map output has "
                + partitions);
      }
      offsets = Checksums.readLongs(ch, 8L * first, count + 1);
    } catch (NoSuchFileException e) {
      throw Dirs.notFound(id + ": no map output for block " + block);
    }
    long[] checksums = new long[count];
    if (!algorithm.isEmpty()) {
      try (FileChannel ch = open(base + ".checksum." + algorithm, block)) {
        if (ch.size() < 8L * end) {
          throw Dirs.corrupt(
              id + ": checksum file of " + block + " has no entry for partition " + (end - 1));
        }
        checksums = Checksums.readLongs(ch, 8L * first, count);
      } catch (NoSuchFileException e) {
        throw Dirs.corrupt(
            id
                + ": block "
                + block
                + " has no "
                + algorithm
                + " checksum file, though the executor registered that Spark writes them");
      }
    }
    FileChannel data;
    try {
      data = open(base + ".data", block);
    } catch (NoSuchFileException e) {
      throw Dirs.notFound(id + ": block " + block + " has an index but no data file");
    }
    try {
      long size = data.size();
      long[] lengths = new long[count];
      for (int i = 0; i < count; i++) {
        long from = offsets[i];
        long to = offsets[i + 1];
        if (from < 0 || to < from || to > size) {
          throw Dirs.corrupt(
              id
                  + ": index of "
                  + block
                  + " gives ["
                  + from
                  + ", "
                  + to
                  + ") for partition "
                  + (first + i)
                  + " outside its data file of "
                  + size
                  + " bytes");
        }
        lengths[i] = to - from;
      }
      long length = offsets[count] - offsets[0];
      String alg = algorithm.isEmpty() ? Checksums.NONE : algorithm;
      return segment
          ? BlockSegment.parts(
              path(base + ".data", block), data, offsets[0], alg, lengths, checksums)
          : new BlockSegment(
              path(base + ".data", block), data, offsets[0], length, alg, checksums[0], length);
    } catch (IOException | RuntimeException e) {
      data.close();
      throw e;
    }
  }

  private FileChannel open(String name, String block) throws IOException {
    return SafeFiles.openRead(roots, path(name, block));
  }

  private Path path(String name, String block) {
    int h = name.hashCode();
    h = h == Integer.MIN_VALUE ? 0 : Math.abs(h);
    Path dir = dirs.get(h % dirs.size());
    Path file =
        Dirs.inside(
            dir,
            dir.resolve(String.format("%02x", (h / dirs.size()) % subDirs)).resolve(name),
            block);
    return file;
  }
}
