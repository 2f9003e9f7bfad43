package org.apache.spark.shuffle.courier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.spark.SparkConf;
import org.coflow.core.config.Config;
import org.coflow.courier.CourierConfig;
import org.junit.jupiter.api.Test;

/** The plugin's keys as Spark users set them, including the agent's own under the Spark prefix. */
class CourierSparkConfigTest {
  @Test
  void agentKeysTravelUnderTheSparkPrefix() {
    Config cfg =
        CourierShuffleManager.configOf(
            new SparkConf(false)
                .set("spark.shuffle.courier.maxNum", "2")
                .set("spark.shuffle.courier.minSize", "1m")
                .set("spark.shuffle.courier.threads", "3"));
    Config agent = CourierSparkConfig.AGENT_KEYS.agentConfig(cfg);
    assertEquals(2, agent.get(CourierConfig.MAX_NUM));
    assertEquals(1L << 20, agent.get(CourierConfig.MIN_SIZE));
    assertEquals(3, agent.get(CourierConfig.THREADS));
  }

  @Test
  void aPortAloneNamesTheAgentOnTheExecutorsOwnHost() {
    org.coflow.courier.protocol.HostPort own = ExecutorAgent.parseAgent("7337", "198.18.3.2");
    assertEquals("198.18.3.2", own.host());
    assertEquals(7337, own.port());
    org.coflow.courier.protocol.HostPort named =
        ExecutorAgent.parseAgent("10.0.0.9:7000", "198.18.3.2");
    assertEquals("10.0.0.9", named.host());
    assertEquals(7000, named.port());
    IllegalArgumentException bad =
        assertThrows(IllegalArgumentException.class, () -> ExecutorAgent.parseAgent("99999", "h"));
    assertTrue(bad.getMessage().contains("spark.shuffle.courier.agent"), bad.getMessage());
    assertTrue(bad.getMessage().contains("out of range"), bad.getMessage());
  }

  @Test
  void unsetAgentKeysKeepTheAgentsDefaults() {
    Config agent =
        CourierSparkConfig.AGENT_KEYS.agentConfig(
            CourierShuffleManager.configOf(new SparkConf(false)));
    assertEquals(CourierConfig.MAX_NUM.defaultValue(), agent.get(CourierConfig.MAX_NUM));
    assertEquals(CourierConfig.MIN_SIZE.defaultValue(), agent.get(CourierConfig.MIN_SIZE));
  }

  @Test
  void aBadValueOrAnUnknownKeyIsNamed() {
    IllegalArgumentException bad =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                CourierShuffleManager.configOf(
                    new SparkConf(false).set("spark.shuffle.courier.maxNum", "0")));
    assertTrue(bad.getMessage().contains("spark.shuffle.courier.maxNum"), bad.getMessage());
    IllegalArgumentException typo =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                CourierShuffleManager.configOf(
                    new SparkConf(false).set("spark.shuffle.courier.maxnum", "2")));
    assertTrue(typo.getMessage().contains("spark.shuffle.courier.maxnum"), typo.getMessage());
  }
}
