package org.coflow.sim.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;

/**
 * Reads the coflow-benchmark format (see {@code sim/data/coflow-benchmark/README.md}):
 *
 * <pre>
 * PORTS COFLOWS
 * id arrival_ms M mapper_port x M  R reducer_port:MB x R
 * </pre>
 *
 * Everything is checked: counts, port ranges, positive finite sizes, arrival order, duplicate ports
 * within a coflow, trailing tokens, and the bounds of {@link Trace} (ports, coflows, mappers and
 * reducers per coflow, reducer sizes, arrival times), each before anything is allocated from it.
 * The first problem stops the parse with the file, line and offending value.
 */
public final class TraceParser {
  private final String file;
  private int lineNo;

  private TraceParser(String file) {
    this.file = file;
  }

  public static Trace parse(Path path) throws IOException, TraceFormatException {
    try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      return parse(path.toString(), r);
    }
  }

  public static Trace parse(String name, Reader reader) throws IOException, TraceFormatException {
    return new TraceParser(name).read(new BufferedReader(reader));
  }

  private Trace read(BufferedReader in) throws IOException, TraceFormatException {
    String header = nextLine(in);
    if (header == null) {
      throw error("empty file: expected a header line 'PORTS COFLOWS'");
    }
    String[] h = header.trim().split("\\s+");
    if (h.length != 2) {
      throw error("header must be two integers 'PORTS COFLOWS', got '" + header.trim() + "'");
    }
    int ports =
        (int)
            bounded(
                h[0],
                "number of ports",
                1,
                Trace.MAX_PORTS,
                "; the simulators keep a table per port pair: use a rack-level trace (one port"
                    + " per rack) or check the header 'PORTS COFLOWS'");
    int count =
        (int)
            bounded(
                h[1],
                "number of coflows",
                0,
                Trace.MAX_COFLOWS,
                "; split the trace or check the header 'PORTS COFLOWS'");
    if ((long) ports * count > Trace.MAX_COFLOW_PORTS) {
      throw error(
          ports
              + " ports times "
              + count
              + " coflows is over the bound of "
              + Trace.MAX_COFLOW_PORTS
              + " (coflow, port) pairs the simulators can number; split the trace");
    }
    // Grown as lines arrive: the header's count is a claim until the file bears it out.
    List<TraceCoflow> coflows = new ArrayList<>();
    long lastArrival = 0;
    String line;
    while ((line = nextLine(in)) != null) {
      if (line.isBlank()) {
        continue;
      }
      if (coflows.size() == count) {
        throw new TraceFormatException(
            file,
            1,
            "header announces "
                + count
                + " coflows but the file has more (line "
                + lineNo
                + " is one too many)");
      }
      TraceCoflow c = coflow(line, ports);
      if (c.arrivalMs() < lastArrival) {
        throw error(
            "arrival "
                + c.arrivalMs()
                + " ms of coflow "
                + c.id()
                + " is earlier than the previous coflow's "
                + lastArrival
                + " ms; coflows must be in arrival order");
      }
      lastArrival = c.arrivalMs();
      coflows.add(c);
    }
    if (coflows.size() != count) {
      throw new TraceFormatException(
          file, 1, "header announces " + count + " coflows but the file has " + coflows.size());
    }
    return new Trace(file, ports, List.copyOf(coflows));
  }

  private TraceCoflow coflow(String line, int ports) throws TraceFormatException {
    String[] t = line.trim().split("\\s+");
    int[] pos = {0};
    int id = (int) bounded(token(t, pos, "coflow id"), "coflow id", 0, Integer.MAX_VALUE, "");
    long arrival =
        bounded(
            token(t, pos, "arrival time"),
            "arrival time (ms)",
            0,
            Trace.MAX_ARRIVAL_MS,
            " ms (about 3 years); check the trace's units (milliseconds from its start)");
    int m = perCoflow(token(t, pos, "number of mappers"), "mappers", id, ports);
    int[] mappers = new int[m];
    BitSet seen = new BitSet();
    for (int i = 0; i < m; i++) {
      mappers[i] = port(token(t, pos, "mapper port"), ports, "mapper port");
      if (seen.get(mappers[i])) {
        throw error("coflow " + id + " lists mapper port " + mappers[i] + " twice");
      }
      seen.set(mappers[i]);
    }
    int r = perCoflow(token(t, pos, "number of reducers"), "reducers", id, ports);
    int[] reducers = new int[r];
    double[] mb = new double[r];
    seen.clear();
    for (int i = 0; i < r; i++) {
      String tok = token(t, pos, "reducer 'port:MB'");
      int colon = tok.indexOf(':');
      if (colon < 0) {
        throw error("reducer '" + tok + "' of coflow " + id + " must be 'port:MB'");
      }
      reducers[i] = port(tok.substring(0, colon), ports, "reducer port");
      if (seen.get(reducers[i])) {
        throw error("coflow " + id + " lists reducer port " + reducers[i] + " twice");
      }
      seen.set(reducers[i]);
      mb[i] = megabytes(tok.substring(colon + 1), id);
    }
    if (pos[0] != t.length) {
      throw error("unexpected '" + t[pos[0]] + "' after the " + r + " reducers of coflow " + id);
    }
    return new TraceCoflow(id, arrival, mappers, reducers, mb, lineNo);
  }

  private String nextLine(BufferedReader in) throws IOException {
    lineNo++;
    return in.readLine();
  }

  private String token(String[] t, int[] pos, String what) throws TraceFormatException {
    if (pos[0] >= t.length) {
      throw error("line ends where the " + what + " should be");
    }
    return t[pos[0]++];
  }

  private int port(String s, int ports, String what) throws TraceFormatException {
    int p = (int) bounded(s, what, 0, Integer.MAX_VALUE, "");
    if (p >= ports) {
      throw error(
          what
              + " "
              + p
              + " is outside the fabric of "
              + ports
              + " ports (0.."
              + (ports - 1)
              + ")");
    }
    return p;
  }

  /**
   * A coflow's number of mappers or reducers: positive and, as each sits on a port of its own, at
   * most the fabric's ports. Checked before the arrays for them are allocated.
   */
  private int perCoflow(String s, String what, int id, int ports) throws TraceFormatException {
    long n = bounded(s, "number of " + what, 1, Long.MAX_VALUE, "");
    if (n > ports) {
      throw error(
          "number of "
              + what
              + " "
              + s
              + " of coflow "
              + id
              + " is more than the fabric's "
              + ports
              + " ports (each needs a port of its own); check the coflow's number of "
              + what
              + " or the header's number of ports");
    }
    return (int) n;
  }

  private double megabytes(String s, int id) throws TraceFormatException {
    double v;
    try {
      v = Double.parseDouble(s);
    } catch (NumberFormatException e) {
      throw error("reducer size '" + s + "' of coflow " + id + " is not a number of MB");
    }
    if (!(v > 0)) {
      throw error(
          "reducer size '"
              + s
              + "' of coflow "
              + id
              + " must be a positive number of MB, at most "
              + MAX_MB);
    }
    if (v > Trace.MAX_REDUCER_MB) {
      throw error(
          "reducer size '"
              + s
              + "' of coflow "
              + id
              + " is over the "
              + MAX_MB
              + " MB bound; check the trace's units (megabytes of 2^20 bytes)");
    }
    return v;
  }

  /** {@link Trace#MAX_REDUCER_MB} as messages print it. */
  private static final String MAX_MB = String.format(Locale.ROOT, "%,.0f", Trace.MAX_REDUCER_MB);

  /**
   * A whole number in {@code [min, max]}; {@code remedy} follows the bound in the message. Digits
   * too many for a long are out of bounds too, not "not a whole number".
   */
  private long bounded(String s, String what, long min, long max, String remedy)
      throws TraceFormatException {
    long v;
    try {
      v = Long.parseLong(s);
    } catch (NumberFormatException e) {
      if (!s.matches("[+-]?[0-9]+")) {
        throw error(what + " must be a whole number, got '" + s + "'");
      }
      v = s.startsWith("-") ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    if (v < min) {
      throw error(
          what + (min == 0 ? " must not be negative" : " must be positive") + ", got '" + s + "'");
    }
    if (v > max) {
      throw error(what + " " + s + " is over the bound of " + max + remedy);
    }
    return v;
  }

  private TraceFormatException error(String message) {
    return new TraceFormatException(file, lineNo, message);
  }
}
