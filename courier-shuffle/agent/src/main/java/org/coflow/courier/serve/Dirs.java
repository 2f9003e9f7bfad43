package org.coflow.courier.serve;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.coflow.api.proto.courier.v1.ErrorCode;
import org.coflow.courier.protocol.ProtocolException;

/** Checks on what a registration names: directories, and names that become path segments. */
final class Dirs {
  /** Ids that may become one path segment: no separators, no "." or "..". */
  private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.\\-]{0,254}");

  private Dirs() {}

  /** The real paths of {@code dirs}: each must be an absolute, existing directory. */
  static List<Path> realDirs(List<String> dirs, String what) {
    if (dirs.isEmpty()) {
      throw invalid(what + ": no local directories given");
    }
    List<Path> out = new ArrayList<>();
    for (String d : dirs) {
      Path p;
      try {
        p = Path.of(d);
      } catch (java.nio.file.InvalidPathException e) {
        throw invalid(
            what + ": local directory '" + d.replace('\0', '?') + "' is not a valid path");
      }
      if (!p.isAbsolute()) {
        throw invalid(what + ": local directory '" + d + "' is not an absolute path");
      }
      try {
        Path real = p.toRealPath();
        if (!Files.isDirectory(real)) {
          throw invalid(what + ": local directory '" + d + "' is not a directory");
        }
        out.add(real);
      } catch (IOException e) {
        throw invalid(what + ": local directory '" + d + "' does not exist or cannot be read");
      }
    }
    return out;
  }

  /** {@code value} as a single safe path segment. */
  static String segment(String value, String what) {
    if (!SEGMENT.matcher(value).matches() || value.contains("..")) {
      throw invalid(what + " '" + value + "' is not a valid name (letters, digits, '_', '-', '.')");
    }
    return value;
  }

  /** {@code file} if it lies inside {@code dir} (both real paths), else NOT_FOUND. */
  static Path inside(Path dir, Path file, String block) {
    Path normal = file.normalize();
    if (!normal.startsWith(dir)) {
      throw new ProtocolException(
          ErrorCode.ERROR_CODE_NOT_FOUND,
          "block " + block + " resolves outside the registered directories");
    }
    return normal;
  }

  static ProtocolException invalid(String message) {
    return new ProtocolException(ErrorCode.ERROR_CODE_INVALID, message);
  }

  static ProtocolException forbidden(String message) {
    return new ProtocolException(ErrorCode.ERROR_CODE_FORBIDDEN, message);
  }

  static ProtocolException notFound(String message) {
    return new ProtocolException(ErrorCode.ERROR_CODE_NOT_FOUND, message);
  }

  static ProtocolException corrupt(String message) {
    return new ProtocolException(ErrorCode.ERROR_CODE_CORRUPT, message);
  }
}
