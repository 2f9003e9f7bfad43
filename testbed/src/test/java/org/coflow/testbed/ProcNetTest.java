package org.coflow.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Reading the kernel's TCP table: which connections count as a host's concurrent data ones. */
class ProcNetTest {
  private static final String HEADER =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout"
          + " inode";

  /** A table line: local and remote address (hex), state, inode. */
  private static String line(int sl, String local, String remote, String state, long inode) {
    return String.format(
        "%4d: %s %s %s 00000000:00000000 00:00000000 00000000     0        0 %d 1"
            + " 0000000000000000 100 0 0 10 0",
        sl, local, remote, state, inode);
  }

  // Host 10.0.0.2 (0200000A) to data port 7337 (1CA9) of 10.0.0.1 (0100000A) and 10.0.0.3.
  private static final String A = line(0, "0200000A:9C40", "0100000A:1CA9", "01", 1001);
  private static final String B = line(1, "0200000A:9C41", "0300000A:1CA9", "01", 1002);
  private static final String C = line(2, "0200000A:9C42", "0100000A:1CA9", "01", 1003);
  private static final String D = line(3, "0200000A:9C43", "0300000A:1CA9", "01", 1004);
  private static final Set<Integer> DATA = Set.of(7337);

  @Test
  void countsEstablishedConnectionsToDataPortsOnly() {
    List<String> table =
        List.of(
            HEADER,
            A,
            B,
            line(4, "0200000A:9C44", "0100000A:1CA9", "04", 1005), // FIN_WAIT1: closing
            line(5, "0200000A:9C45", "0100000A:1F90", "01", 1006), // another port
            line(6, "0100007F:9C46", "0100007F:1CA9", "01", 1007), // loopback
            line(7, "0200000A:1CA9", "0100000A:9C47", "01", 1008), // opened by the peer
            "   8: garbage");
    assertEquals(2, ProcNet.established(table, DATA).size());
  }

  /**
   * A read listed A (closing during the walk) next to D (opened during it): four. The next read,
   * without A, shows the three held together.
   */
  @Test
  void aConnectionClosedDuringTheWalkIsNotCountedWithItsSuccessor() {
    Set<ProcNet.Socket> first = ProcNet.established(List.of(HEADER, A, B, C, D), DATA);
    Set<ProcNet.Socket> second = ProcNet.established(List.of(HEADER, B, C, D), DATA);
    assertEquals(4, first.size());
    assertEquals(3, ProcNet.establishedInBoth(first, second));
  }

  /** The same addresses with another inode are another socket: a port reused is not the same. */
  @Test
  void aSocketIsItsInodeNotItsAddresses() {
    String reused = line(0, "0200000A:9C40", "0100000A:1CA9", "01", 2001);
    Set<ProcNet.Socket> first = ProcNet.established(List.of(HEADER, A, B), DATA);
    Set<ProcNet.Socket> second = ProcNet.established(List.of(HEADER, reused, B), DATA);
    assertEquals(1, ProcNet.establishedInBoth(first, second));
  }
}
