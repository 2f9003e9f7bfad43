package org.coflow.courier.serve;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.courier.protocol.ProtocolException;

/**
 * Opens files inside the agent's roots without following a link anywhere on the way: from the root
 * that contains the path, each directory is opened relative to the one before it ({@code openat}
 * with {@code O_NOFOLLOW}, Java's {@link SecureDirectoryStream}), and the file itself last. A link
 * anywhere below the root, or one swapped in while the walk runs, fails the open; the caller then
 * serves or writes only through the handle it got, never by name again.
 */
public final class SafeFiles {
  private static final java.util.concurrent.atomic.AtomicBoolean WARNED =
      new java.util.concurrent.atomic.AtomicBoolean();

  private SafeFiles() {}

  /** Opens {@code file} (absolute, normalised, inside one of {@code roots}) for reading. */
  public static FileChannel openRead(List<Path> roots, Path file) throws IOException {
    FileChannel ch = open(roots, file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
    try {
      Object links = Files.getAttribute(file, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
      if (links instanceof Integer && (Integer) links > 1) {
        // A hard link inside the roots may name a file outside them; the engines never make one.
        throw new ProtocolException(
            ErrorCode.ERROR_CODE_FORBIDDEN,
            file
                + " has "
                + links
                + " hard links; a file with more than one is not served (it may be a link to a"
                + " file outside the agent's directories)");
      }
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    return ch;
  }

  /**
   * Creates {@code file} for writing; it must not exist (never truncates, never follows a link).
   *
   * @throws FileAlreadyExistsException if anything (a file, a link) has that name
   */
  public static FileChannel createNew(List<Path> roots, Path file) throws IOException {
    return open(
        roots,
        file,
        Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
  }

  /** Deletes {@code file} by the same walk (never through a link). Missing is not an error. */
  public static void delete(List<Path> roots, Path file) throws IOException {
    Walk w = walk(roots, file);
    try {
      if (w.dir != null) {
        w.dir.deleteFile(w.name);
      } else {
        Files.deleteIfExists(file);
      }
    } catch (NoSuchFileException e) {
      // already gone
    } finally {
      w.close();
    }
  }

  /** The root of {@code roots} that {@code file} lies strictly inside, or null. */
  public static Path rootOf(List<Path> roots, Path file) {
    Path normal = file.normalize();
    for (Path r : roots) {
      if (normal.startsWith(r) && !normal.equals(r)) {
        return r;
      }
    }
    return null;
  }

  private static FileChannel open(List<Path> roots, Path file, Set<OpenOption> options)
      throws IOException {
    Walk w = walk(roots, file);
    try {
      if (w.dir != null) {
        return (FileChannel) w.dir.newByteChannel(w.name, options);
      }
      return FileChannel.open(file, options);
    } catch (IOException e) {
      if (e instanceof NoSuchFileException || e instanceof FileAlreadyExistsException) {
        throw e;
      }
      if (Files.isSymbolicLink(file)) {
        throw new ProtocolException(
            ErrorCode.ERROR_CODE_NOT_FOUND, file + " is a link; links are never followed");
      }
      throw e;
    } finally {
      w.close();
    }
  }

  /** The directory handle holding the last name of {@code file}, opened link by link. */
  private static final class Walk implements AutoCloseable {
    SecureDirectoryStream<Path> dir;
    Path name;

    @Override
    public void close() throws IOException {
      if (dir != null) {
        dir.close();
      }
    }
  }

  private static Walk walk(List<Path> roots, Path file) throws IOException {
    Path normal = file.normalize();
    Path root = rootOf(roots, normal);
    if (root == null || !normal.equals(file)) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_NOT_FOUND, file + " is outside the agent's directories " + roots);
    }
    Path rel = root.relativize(normal);
    Walk w = new Walk();
    DirectoryStream<Path> top = Files.newDirectoryStream(root);
    if (!(top instanceof SecureDirectoryStream)) {
      // No openat on this platform: check each step for a link instead (racy, but refuses
      // every link that is there when we look).
      top.close();
      if (!WARNED.getAndSet(true)) {
        org.slf4j.LoggerFactory.getLogger(SafeFiles.class)
            .warn(
                "this platform has no secure directory streams (openat): files are checked for "
                    + "links before they are opened, which a local user could race; run agents "
                    + "on Linux for link-free opens");
      }
      Path at = root;
      for (Path part : rel) {
        at = at.resolve(part);
        if (Files.isSymbolicLink(at)) {
          throw new ProtocolException(
              ErrorCode.ERROR_CODE_NOT_FOUND, at + " is a link; links are never followed");
        }
      }
      return w;
    }
    SecureDirectoryStream<Path> dir = (SecureDirectoryStream<Path>) top;
    try {
      for (int i = 0; i < rel.getNameCount() - 1; i++) {
        SecureDirectoryStream<Path> next;
        try {
          next = dir.newDirectoryStream(rel.getName(i), LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
          throw e;
        } catch (IOException e) {
          throw new ProtocolException(
              ErrorCode.ERROR_CODE_NOT_FOUND,
              root.resolve(rel.subpath(0, i + 1))
                  + " is not a directory inside the agent's directories (links are never "
                  + "followed)",
              e);
        }
        dir.close();
        dir = next;
      }
    } catch (IOException | RuntimeException e) {
      dir.close();
      throw e;
    }
    w.dir = dir;
    w.name = rel.getFileName();
    return w;
  }
}
