package org.coflow.bench.sparktestbed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

/** What one host's {@code /proc/net} files say, as the Spark testbed's sampler reads them. */
class HostSamplerTest {
  @Test
  void readsLinkBytesRetransmissionsTimeoutsAndEstablishedConnectionsToOtherHosts() {
    String text =
        String.join(
            "\n",
            "Inter-|   Receive                            |  Transmit",
            " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets",
            "    lo:    1000      10    0    0    0     0          0         0     1000      10"
                + "    0    0    0     0       0          0",
            "  eth0: 5000000    4000    0    0    0     0          0         0  7000000    5000"
                + "    0    0    0     0       0          0",
            "Ip: Forwarding DefaultTTL",
            "Ip: 2 64",
            "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails"
                + " EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts",
            "Tcp: 1 200 120000 -1 10 5 0 0 3 1000 2000 42 0 1",
            "TcpExt: SyncookiesSent TCPTimeouts TCPLossProbes",
            "TcpExt: 0 7 3",
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid"
                + "  timeout inode",
            // established to another host, established on loopback, listening
            "   0: 01CA12C6:1D17 02CA12C6:A1B2 01 00000000:00000000 00:00000000 00000000     0"
                + "        0 11 1 0000000000000000 20 4 30 10 -1",
            "   1: 0100007F:1D17 0100007F:A1B3 01 00000000:00000000 00:00000000 00000000     0"
                + "        0 12 1 0000000000000000 20 4 30 10 -1",
            "   2: 01CA12C6:1D17 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0"
                + "        0 13 1 0000000000000000 20 4 30 10 -1");
    assertArrayEquals(new long[] {5000000, 7000000, 42, 7, 1}, HostSampler.parseHost(text));
  }
}
