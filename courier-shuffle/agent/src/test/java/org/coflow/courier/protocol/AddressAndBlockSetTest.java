package org.coflow.courier.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AddressAndBlockSetTest {
  @Test
  void hostPortRoundTripsIncludingV6() {
    assertEquals("127.0.0.1:7337", HostPort.parse("127.0.0.1:7337", "x").toString());
    HostPort v6 = HostPort.parse("[::1]:80", "x");
    assertEquals("::1", v6.host());
    assertEquals("[::1]:80", v6.toString());
  }

  @Test
  void badAddressesNameTheValueAndTheSetting() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> HostPort.parse("nohost", "spark.shuffle.courier.agent"));
    assertTrue(e.getMessage().contains("spark.shuffle.courier.agent 'nohost'"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> HostPort.parse("h:0", "x"));
    assertThrows(IllegalArgumentException.class, () -> HostPort.parse("h:port", "x"));
    assertThrows(IllegalArgumentException.class, () -> HostPort.parse(":80", "x"));
  }

  @Test
  void blockSetIdsAreBuiltAndParsedInOnePlace() {
    BlockSetId spark = BlockSetId.spark("app-20261122-0001", "3");
    assertEquals("spark/app-20261122-0001/3", spark.toString());
    assertEquals(spark, BlockSetId.parse(spark.toString()));
    assertEquals("3", BlockSetId.parse("spark/a/3").executor());
    BlockSetId mr = BlockSetId.mapReduce("job_1_0001");
    assertEquals("mr/job_1_0001", mr.toString());
    assertEquals(BlockSetId.Engine.MAPREDUCE, BlockSetId.parse("mr/job_1_0001").engine());
    assertNull(mr.executor());
  }

  @Test
  void malformedBlockSetsAreRefused() {
    for (String bad :
        new String[] {"spark/a", "spark//1", "mr/", "mr/a/b", "hdfs/x", "", "spark/a/1/2"}) {
      assertThrows(IllegalArgumentException.class, () -> BlockSetId.parse(bad), bad);
    }
    assertThrows(IllegalArgumentException.class, () -> BlockSetId.spark("a/b", "1"));
  }
}
