package org.coflow.coda;

import java.io.File;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.jar.JarFile;
import org.coflow.core.config.Config;

/**
 * The coda-agent's entry point: {@code -javaagent:coda-agent.jar=master=HOST:PORT,...} at JVM start
 * ({@link #premain}) or attached to a running JVM ({@link #agentmain}; attaching again replaces the
 * settings of the running agent).
 *
 * <p>As little as possible happens here, and nothing escapes: the argument is parsed, the bootstrap
 * part (the hooks the JDK's socket classes call, nested in this jar as {@code
 * META-INF/coda/bootstrap.jar}) is appended to the bootstrap class path, and {@link CodaRuntime},
 * which may only load after that, takes over. Any failure is logged once and leaves the JVM as it
 * was: no class is changed until everything the advice needs is in place. This class must never
 * name a bootstrap class itself: verifying it would load that class from the wrong loader.
 */
public final class CodaAgent {
  private static final String BOOTSTRAP_JAR = "META-INF/coda/bootstrap.jar";
  private static final String HOOKS = "org.coflow.coda.bootstrap.CodaHooks";

  private CodaAgent() {}

  public static void premain(String args, Instrumentation inst) {
    start(args, inst);
  }

  public static void agentmain(String args, Instrumentation inst) {
    start(args, inst);
  }

  private static synchronized void start(String args, Instrumentation inst) {
    try {
      Config config;
      try {
        config = CodaConfig.parseArgs(args);
      } catch (IllegalArgumentException e) {
        CodaLog.info("not started: " + e.getMessage());
        return;
      }
      appendBootstrap(inst);
      CodaRuntime.start(config, inst);
    } catch (Throwable t) {
      // Anything at all (a jar replaced under a running JVM fails with NoClassDefFoundError):
      // a premain that throws aborts the JVM, so nothing leaves here, not even through CodaLog.
      try {
        System.err.println("[coda-agent] not started, the JVM runs without it: " + t);
      } catch (Throwable ignored) {
        // nowhere left to say it
      }
    }
  }

  /** Puts the hooks on the bootstrap class path, once per JVM. */
  private static void appendBootstrap(Instrumentation inst) throws Exception {
    try {
      Class.forName(HOOKS, false, null);
      return;
    } catch (ClassNotFoundException e) {
      // not there yet
    }
    Path jar = Files.createTempFile("coda-bootstrap-", ".jar");
    jar.toFile().deleteOnExit();
    try (InputStream in = CodaAgent.class.getClassLoader().getResourceAsStream(BOOTSTRAP_JAR)) {
      if (in == null) {
        throw new IllegalStateException(
            BOOTSTRAP_JAR
                + " is missing from the agent jar: use the coda-agent.jar the build makes");
      }
      Files.copy(in, jar, StandardCopyOption.REPLACE_EXISTING);
    }
    inst.appendToBootstrapClassLoaderSearch(new JarFile(new File(jar.toString())));
  }
}
