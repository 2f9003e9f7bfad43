package org.apache.spark.shuffle.courier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.spark.SparkConf;
import org.coflow.api.config.Config;
import org.coflow.courier.merge.CourierConfig;
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
