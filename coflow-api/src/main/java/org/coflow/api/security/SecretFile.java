package org.coflow.api.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Files holding secrets of the control plane (the shared token, TLS private keys), read the one way
 * both the master and its clients do it. Such a file must be private to its owner (no permission
 * bits for group or others on a POSIX file system): a secret anyone on the machine can read
 * protects nothing, so such a file is refused rather than used.
 */
public final class SecretFile {
  private static final Set<PosixFilePermission> SHARED =
      EnumSet.of(
          PosixFilePermission.GROUP_READ,
          PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.GROUP_EXECUTE,
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE,
          PosixFilePermission.OTHERS_EXECUTE);

  private SecretFile() {}

  /**
   * The token in {@code file} (surrounding white space removed).
   *
   * @param setting what named the file, e.g. {@code coflow.master.auth.tokenFile}, for messages
   * @throws IllegalArgumentException if the file cannot be read, is open to group or others, or
   *     holds no valid token; the message names the setting, the file and what to do
   */
  public static String readToken(Path file, String setting) {
    String where = setting + "=" + file;
    requirePrivate(file, setting);
    String token;
    try {
      token = Files.readString(file, StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw new IllegalArgumentException(
          where + ": cannot read the token file (" + e + "); create it with a random token", e);
    }
    try {
      return BearerToken.check(token);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }

  /**
   * Checks that {@code file} exists and is open to its owner only.
   *
   * @param setting what named the file, for messages
   * @throws IllegalArgumentException if it cannot be read or group or others have any permission
   */
  public static void requirePrivate(Path file, String setting) {
    String where = setting + "=" + file;
    if (!Files.isReadable(file)) {
      throw new IllegalArgumentException(
          where + ": the file does not exist or cannot be read by this user");
    }
    Set<PosixFilePermission> perms = null;
    try {
      perms = Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException e) {
      // Not a POSIX file system: its own ACLs are the operator's business.
    } catch (IOException e) {
      throw new IllegalArgumentException(
          where + ": cannot read the file's permissions (" + e + ")", e);
    }
    if (perms != null && !java.util.Collections.disjoint(perms, SHARED)) {
      throw new IllegalArgumentException(
          where
              + ": the file is open to group or others ("
              + PosixFilePermissions.toString(perms)
              + "), so anyone on the machine could read the secret: run chmod 600 "
              + file);
    }
  }
}
