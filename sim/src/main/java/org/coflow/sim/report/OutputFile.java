package org.coflow.sim.report;

import java.awt.image.RenderedImage;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import javax.imageio.ImageIO;

/**
 * Writes the reports' output files (CSV, JSON, PNG) without following a link planted at their path.
 *
 * <p>The bytes go to a new file in the same directory, created exclusively (so no link can stand in
 * for it) and opened without following links, which is then renamed over the path. A rename
 * replaces a symbolic link at the path itself, never the file it points to, so an output directory
 * shared with others cannot be used to overwrite a file elsewhere; and a reader sees the old file
 * or the whole new one, never a half-written one. The new file gets the usual permissions of a
 * created file (0666 less the umask), not a temporary file's 0600.
 */
public final class OutputFile {
  /** What writes the file's bytes; the stream is closed by {@link #write}. */
  @FunctionalInterface
  public interface Body {
    void writeTo(OutputStream out) throws IOException;
  }

  private OutputFile() {}

  /** Replaces {@code file} (a regular file, a link, or nothing) with what {@code body} writes. */
  public static void write(Path file, Body body) throws IOException {
    Path target = file.toAbsolutePath();
    Path dir = target.getParent();
    Path tmp =
        Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp", permissions(dir));
    try {
      try (OutputStream out =
          new BufferedOutputStream(
              Files.newOutputStream(tmp, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS))) {
        body.writeTo(out);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException | RuntimeException | Error e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
  }

  public static void writeString(Path file, CharSequence text) throws IOException {
    write(file, out -> out.write(text.toString().getBytes(StandardCharsets.UTF_8)));
  }

  public static void writePng(Path file, RenderedImage image) throws IOException {
    write(
        file,
        out -> {
          if (!ImageIO.write(image, "png", out)) {
            throw new IOException("no PNG writer in this JVM to write " + file);
          }
        });
  }

  private static FileAttribute<?>[] permissions(Path dir) {
    if (!dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      return new FileAttribute<?>[0];
    }
    return new FileAttribute<?>[] {
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-rw-rw-"))
    };
  }
}
