package org.coflow.it;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency rules of ARCHITECTURE.md, checked on the compiled classes of every module (each
 * module's {@code target/classes}, unshaded: the drop-in jar relocates Netty and gRPC, which would
 * hide a forbidden import). A failure names the class, what it uses and the rule it breaks.
 */
class ArchitectureTest {
  private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

  /** STYLE.md's bound on a class's length. */
  private static final int MAX_FILE_LINES = 600;

  private static final String[] MODULES = {
    "coflow-core",
    "coflow-api",
    "master",
    "courier-shuffle/agent",
    "courier-shuffle/spark",
    "courier-shuffle/mapreduce",
    "coda-agent/bootstrap",
    "coda-agent/agent",
    "cli",
    "sim",
    "stress",
    "testbed",
    "bench",
    "mapreduce-it"
  };

  /** The Courier side: the agent and both engine adapters. */
  private static final String[] COURIER = {
    "org.coflow.courier..",
    "org.apache.spark.shuffle.courier..",
    "org.apache.hadoop.mapreduce.task.reduce.."
  };

  private static JavaClasses classes;

  @BeforeAll
  static void importModules() {
    List<Path> dirs = new ArrayList<>();
    for (String m : MODULES) {
      Path d = ROOT.resolve(m).resolve("target/classes");
      if (!Files.isDirectory(d)) {
        throw new IllegalStateException(
            d + " is missing: the reactor builds every module before this one");
      }
      dirs.add(d);
    }
    classes = new ClassFileImporter().importPaths(dirs);
  }

  @Test
  void policiesArePure() {
    noClasses()
        .that()
        .resideInAPackage("org.coflow.core.policy..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.grpc..", "io.netty..", "java.util.concurrent..")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("java.lang.Thread")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("java.time.Clock")
        .orShould()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .because(
            "a policy is the same object in the simulator and the live master: time comes in as an "
                + "argument, and it does no I/O and starts no threads")
        .check(classes);
  }

  @Test
  void theCoreDependsOnTheJdkOnly() {
    com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes()
        .that()
        .resideInAPackage("org.coflow.core..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "org.coflow.core..")
        .because(
            "the scheduling core runs unchanged in the simulator, the master and the agents: no "
                + "gRPC, Netty, Spark, Hadoop or other module of ours")
        .check(classes);
  }

  @Test
  void theCoreModuleHasNoDependencies() throws Exception {
    // The Maven fact behind the rule above: nothing but the JDK is on coflow-core's class path.
    assertEquals(
        List.of(),
        compileDependencies("coflow-core"),
        "coflow-core/pom.xml declares dependencies outside the test scope; the core must build on"
            + " the JDK alone");
  }

  @Test
  void theSimulatorRunsOnTheCoreAlone() throws Exception {
    com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes()
        .that()
        .resideInAPackage("org.coflow.sim..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "javax.imageio..", "org.coflow.core..", "org.coflow.sim..")
        .because(
            "a researcher builds and runs the simulator without Spark, Hadoop, gRPC or Netty: it"
                + " replays the scheduling core, nothing else")
        .check(classes);
    assertEquals(
        List.of("org.coflow:coflow-core"),
        compileDependencies("sim"),
        "sim/pom.xml: the simulator's class path is the scheduling core's, nothing more");
  }

  /** The groupId:artifactId of every dependency a module's pom declares outside the test scope. */
  private static List<String> compileDependencies(String module) throws Exception {
    Path pom = ROOT.resolve(module).resolve("pom.xml");
    org.w3c.dom.Document doc =
        javax.xml.parsers.DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(pom.toFile());
    org.w3c.dom.NodeList deps = doc.getElementsByTagName("dependency");
    List<String> compile = new ArrayList<>();
    for (int i = 0; i < deps.getLength(); i++) {
      org.w3c.dom.Element d = (org.w3c.dom.Element) deps.item(i);
      org.w3c.dom.NodeList scope = d.getElementsByTagName("scope");
      if (scope.getLength() == 0 || !scope.item(0).getTextContent().trim().equals("test")) {
        compile.add(
            d.getElementsByTagName("groupId").item(0).getTextContent()
                + ":"
                + d.getElementsByTagName("artifactId").item(0).getTextContent());
      }
    }
    return compile;
  }

  @Test
  void theSchedulingCoreReadsNoClock() {
    noClasses()
        .that()
        .resideInAnyPackage("org.coflow.core.policy..", "org.coflow.core.identify..")
        .should()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("java.time.Clock")
        .because("the scheduling core is replayed on simulated time")
        .check(classes);
  }

  @Test
  void theAgentKnowsNoEngine() {
    noClasses()
        .that()
        .resideInAPackage("org.coflow.courier..")
        .and()
        .resideOutsideOfPackage("org.coflow.courier.mapreduce..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.apache.spark..", "org.apache.hadoop..")
        .because(
            "the agent is engine-neutral: the adapters live in org.apache.spark.shuffle.courier and "
                + "org.coflow.courier.mapreduce / org.apache.hadoop.mapreduce.task.reduce")
        .check(classes);
  }

  @Test
  void theCodaAgentKnowsNoEngineAndNoOtherComponent() {
    noClasses()
        .that()
        .resideInAPackage("org.coflow.coda..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.spark..", "org.apache.hadoop..", "org.coflow.master..", COURIER[0])
        .because(
            "the coda-agent loads into any JVM: it sees sockets, not engines, and meets the master "
                + "only in coflow-api's protocol")
        .check(classes);
    noClasses()
        .that()
        .resideOutsideOfPackage("org.coflow.coda..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.coflow.coda..")
        .because("the coda-agent is a jar users load with -javaagent; nothing builds on it")
        .check(classes);
  }

  @Test
  void theCodaBootstrapNeedsOnlyTheJdksBaseModule() {
    com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes()
        .that()
        .resideInAPackage("org.coflow.coda.bootstrap..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java.lang..", "java.nio..", "org.coflow.coda.bootstrap..")
        .because(
            "the bootstrap class loader, which loads these for the JDK's socket classes, sees "
                + "nothing else")
        .check(classes);
  }

  @Test
  void theApiImportsNoneOfOurModules() {
    noClasses()
        .that()
        .resideInAPackage("org.coflow.api..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.coflow.master..",
            "org.coflow.courier..",
            "org.apache.spark.shuffle.courier..",
            "org.apache.hadoop.mapreduce.task.reduce..",
            "org.coflow.cli..",
            "org.coflow.sim..",
            "org.coflow.stress..",
            "org.coflow.testbed..",
            "org.coflow.bench..",
            "org.coflow.mr..",
            "org.coflow.it..")
        .because("coflow-api is where the master and Courier meet; it depends on nothing of ours")
        .check(classes);
  }

  @Test
  void theMasterAndCourierNeverImportEachOther() {
    noClasses()
        .that()
        .resideInAPackage("org.coflow.master..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(COURIER)
        .because("the master and the Courier agent meet only in coflow-api's protocol")
        .check(classes);
    noClasses()
        .that()
        .resideInAnyPackage(COURIER)
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.coflow.master..")
        .because("the master and the Courier agent meet only in coflow-api's protocol")
        .check(classes);
  }

  @Test
  void nothingImportsTheBenchOrTheTestModules() {
    noClasses()
        .that()
        .resideOutsideOfPackage("org.coflow.bench..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.coflow.bench..")
        .because("bench sits on top: nothing imports it")
        .check(classes);
    noClasses()
        .that()
        .resideOutsideOfPackage("org.coflow.mr..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.coflow.mr..", "org.coflow.it..")
        .because("the integration-test modules sit on top: nothing imports them")
        .check(classes);
  }

  @Test
  void theDaemonsDoNotNeedTheBench() {
    noClasses()
        .that()
        .resideInAnyPackage("org.coflow.cli..", "org.coflow.stress..", "org.coflow.testbed..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.coflow.bench..", "org.apache.spark..", "org.apache.hadoop..", "io.trino.tpcds..")
        .because(
            "bin/coflow master and agent, the daemons' stress tests and the namespace testbed run"
                + " without Spark, Hadoop or TPC-DS")
        .check(classes);
  }

  /** No main source file is longer than {@link #MAX_FILE_LINES}, comments included. */
  @Test
  void noSourceFileIsOverSixHundredLines() throws IOException {
    List<String> over = new ArrayList<>();
    for (String m : MODULES) {
      try (Stream<Path> files = Files.walk(ROOT.resolve(m).resolve("src/main/java"))) {
        for (Path f :
            (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
          long lines;
          try (Stream<String> text = Files.lines(f)) {
            lines = text.count();
          }
          if (lines > MAX_FILE_LINES) {
            over.add(ROOT.relativize(f) + " (" + lines + " lines)");
          }
        }
      }
    }
    assertEquals(List.of(), over, "split these into classes of one responsibility each");
  }

  @Test
  void packagesHaveNoCycles() {
    for (String module :
        new String[] {
          "org.coflow.core.(*)..",
          "org.coflow.api.(*)..",
          "org.coflow.master.(*)..",
          "org.coflow.courier.(*)..",
          "org.coflow.coda.(*)..",
          "org.coflow.sim.(*)..",
          "org.coflow.stress.(*)..",
          "org.coflow.testbed.(*)..",
          "org.coflow.bench.(*)..",
          "org.coflow.mr.(*).."
        }) {
      slices().matching(module).should().beFreeOfCycles().check(classes);
    }
  }
}
