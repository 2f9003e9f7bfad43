package org.coflow.master.security;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Self-signed certificates for tests, made with the JDK's own {@code keytool} and exported to the
 * PEM files (certificate, PKCS#8 key) the master and its clients read.
 */
public final class TestCerts {
  /** A certificate and its private key as PEM files. */
  public record Pem(Path cert, Path key) {}

  private TestCerts() {}

  /** A certificate for {@code cn}, valid for 127.0.0.1 and localhost. */
  public static Pem selfSigned(Path dir, String cn) throws Exception {
    Path store = dir.resolve(cn + ".p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    Process p =
        new ProcessBuilder(
                List.of(
                    keytool,
                    "-genkeypair",
                    "-alias",
                    cn,
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    "CN=" + cn,
                    "-ext",
                    "SAN=ip:127.0.0.1,dns:localhost",
                    "-validity",
                    "2",
                    "-storetype",
                    "PKCS12",
                    "-keystore",
                    store.toString(),
                    "-storepass",
                    "changeit"))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("keytool failed: " + out);
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, "changeit".toCharArray());
    }
    Certificate cert = ks.getCertificate(cn);
    PrivateKey key = (PrivateKey) ks.getKey(cn, "changeit".toCharArray());
    Pem pem = new Pem(dir.resolve(cn + ".crt.pem"), dir.resolve(cn + ".key.pem"));
    Files.writeString(pem.cert(), pem("CERTIFICATE", cert.getEncoded()));
    Files.writeString(pem.key(), pem("PRIVATE KEY", key.getEncoded()));
    Files.setPosixFilePermissions(pem.key(), PosixFilePermissions.fromString("rw-------"));
    return pem;
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  /** Writes {@code token} to a file only its owner may read. */
  public static Path tokenFile(Path dir, String token) throws Exception {
    Path f = dir.resolve("token");
    Files.writeString(f, token + "\n");
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
    return f;
  }
}
