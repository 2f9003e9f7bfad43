package org.coflow.testbed.cli;

import java.io.PrintStream;
import org.coflow.core.config.CommandHarness;

/** The module's commands as {@code bin/coflow} starts them, run in-process. */
abstract class CliHarness extends CommandHarness {
  @Override
  protected int main(String[] args, PrintStream out, PrintStream err) {
    return Main.run(args, out, err);
  }
}
