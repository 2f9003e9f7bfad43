package org.coflow.bench.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Reads the coflow-benchmark format (see {@code bench/data/coflow-benchmark/README.md}):
 *
 * <pre>
 * PORTS COFLOWS
 * id arrival_ms M mapper_port x M  R reducer_port:MB x R
 * </pre>
 *
 * Everything is checked: counts, port ranges, positive finite sizes, arrival order, duplicate ports
 * within a coflow, trailing tokens. The first problem stops the parse with the file, line and
 * offending value.
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
    int ports = positiveInt(h[0], "number of ports");
    int count = nonNegativeInt(h[1], "number of coflows");
    List<TraceCoflow> coflows = new ArrayList<>(count);
    long lastArrival = 0;
    String line;
    while ((line = nextLine(in)) != null) {
      if (line.isBlank()) {
        continue;
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
    int id = nonNegativeInt(token(t, pos, "coflow id"), "coflow id");
    long arrival = nonNegativeLong(token(t, pos, "arrival time"), "arrival time (ms)");
    int m = positiveInt(token(t, pos, "number of mappers"), "number of mappers");
    int[] mappers = new int[m];
    BitSet seen = new BitSet();
    for (int i = 0; i < m; i++) {
      mappers[i] = port(token(t, pos, "mapper port"), ports, "mapper port");
      if (seen.get(mappers[i])) {
        throw error("coflow " + id + " lists mapper port " + mappers[i] + " twice");
      }
      seen.set(mappers[i]);
    }
    int r = positiveInt(token(t, pos, "number of reducers"), "number of reducers");
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
    int p = nonNegativeInt(s, what);
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

  private double megabytes(String s, int id) throws TraceFormatException {
    double v;
    try {
      v = Double.parseDouble(s);
    } catch (NumberFormatException e) {
      throw error("reducer size '" + s + "' of coflow " + id + " is not a number of MB");
    }
    if (!(v > 0) || Double.isInfinite(v)) {
      throw error("reducer size '" + s + "' of coflow " + id + " must be a positive number of MB");
    }
    return v;
  }

  private int positiveInt(String s, String what) throws TraceFormatException {
    int v = nonNegativeInt(s, what);
    if (v == 0) {
      throw error(what + " must be positive, got '" + s + "'");
    }
    return v;
  }

  private int nonNegativeInt(String s, String what) throws TraceFormatException {
    long v = nonNegativeLong(s, what);
    if (v > Integer.MAX_VALUE) {
      throw error(what + " '" + s + "' is too large");
    }
    return (int) v;
  }

  private long nonNegativeLong(String s, String what) throws TraceFormatException {
    long v;
    try {
      v = Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw error(what + " must be a whole number, got '" + s + "'");
    }
    if (v < 0) {
      throw error(what + " must not be negative, got '" + s + "'");
    }
    return v;
  }

  private TraceFormatException error(String message) {
    return new TraceFormatException(file, lineNo, message);
  }
}
