package org.coflow.courier.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.coflow.core.config.Config;
import org.coflow.courier.CourierConfig;
import org.junit.jupiter.api.Test;

/**
 * The adapter's keys in a Hadoop configuration: the new names, the deprecated ones, the agent's
 * own.
 */
class CourierMapReduceConfigTest {
  private static Configuration conf() {
    return new Configuration(false);
  }

  @Test
  void newNamesAndAgentKeysAreRead() {
    Configuration c = conf();
    c.set("mapreduce.shuffle.courier.agent.port", "0");
    c.set("mapreduce.shuffle.courier.master", "127.0.0.1:7090");
    c.set("mapreduce.shuffle.courier.maxNum", "2");
    Config cfg = ReducerAgents.settings(c);
    assertEquals(0, cfg.get(CourierMapReduceConfig.AGENT_PORT));
    assertEquals("127.0.0.1:7090", cfg.get(CourierMapReduceConfig.MASTER));
    assertEquals(2, CourierMapReduceConfig.AGENT_KEYS.agentConfig(cfg).get(CourierConfig.MAX_NUM));
  }

  @Test
  void deprecatedNamesStillWorkAndTheNewNameWins() {
    Configuration c = conf();
    c.set("coflow.courier.mapreduce.agent.port", "0");
    c.set("coflow.courier.mapreduce.master", "old:1");
    c.set("mapreduce.shuffle.courier.master", "new:2");
    Config cfg = ReducerAgents.settings(c);
    assertEquals(0, cfg.get(CourierMapReduceConfig.AGENT_PORT));
    assertEquals("new:2", cfg.get(CourierMapReduceConfig.MASTER));
  }

  @Test
  void unknownKeysAndBadValuesAreNamedUnderEitherPrefix() {
    Configuration typo = conf();
    typo.set("mapreduce.shuffle.courier.maxnum", "2");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ReducerAgents.settings(typo));
    assertTrue(e.getMessage().contains("mapreduce.shuffle.courier.maxnum"), e.getMessage());
    Configuration bad = conf();
    bad.set("coflow.courier.mapreduce.agent.port", "70000");
    e = assertThrows(IllegalArgumentException.class, () -> ReducerAgents.settings(bad));
    assertTrue(e.getMessage().contains("mapreduce.shuffle.courier.agent.port"), e.getMessage());
  }
}
