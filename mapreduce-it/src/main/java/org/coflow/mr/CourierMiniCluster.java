package org.coflow.mr;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.AuxServices;
import org.coflow.courier.mapreduce.CourierShuffleHandler;

/**
 * A {@link MiniMRYarnCluster} (a ResourceManager and N NodeManagers in this JVM, each task in a JVM
 * of its own) whose NodeManagers run {@code CourierShuffleHandler} as {@code mapreduce_shuffle},
 * exactly as the operator's {@code yarn-site.xml} in docs/mapreduce.md sets it up, with the agent
 * port 0 (several NodeManagers share this machine) and, when given, the coflow master. Every
 * NodeManager is its own host: its agent's host id is its shuffle address.
 */
public final class CourierMiniCluster implements AutoCloseable {
  public static final String HANDLER = "org.coflow.courier.mapreduce.CourierShuffleHandler";
  public static final String PLUGIN = "org.apache.hadoop.mapreduce.task.reduce.CourierShuffle";
  public static final String STOCK_PLUGIN = "org.apache.hadoop.mapreduce.task.reduce.Shuffle";

  private final MiniMRYarnCluster cluster;
  private final int nodeManagers;

  private CourierMiniCluster(MiniMRYarnCluster cluster, int nodeManagers) {
    this.cluster = cluster;
    this.nodeManagers = nodeManagers;
  }

  /**
   * Starts the cluster.
   *
   * @param master the coflow master (host:port), or null for none (reducers then cannot find the
   *     other NodeManagers' agents and use the stock shuffle)
   * @param linkRate each agent's cap, e.g. "50m", or null for none
   */
  public static CourierMiniCluster start(
      String name, int nodeManagers, String master, String linkRate) {
    return start(name, nodeManagers, master, linkRate, Map.of());
  }

  /**
   * As above, with more of the adapter's keys set in the cluster's configuration, as an operator's
   * {@code yarn-site.xml} would (e.g. {@code mapreduce.shuffle.courier.maxNum}).
   */
  public static CourierMiniCluster start(
      String name, int nodeManagers, String master, String linkRate, Map<String, String> settings) {
    Map<String, String> pins = new HashMap<>();
    pins.put(YarnConfiguration.NM_AUX_SERVICES, "mapreduce_shuffle");
    pins.put(String.format(YarnConfiguration.NM_AUX_SERVICE_FMT, "mapreduce_shuffle"), HANDLER);
    Configuration base = new Configuration();
    base.set("mapreduce.shuffle.courier.agent.port", "0");
    if (master != null) {
      base.set("mapreduce.shuffle.courier.master", master);
    }
    if (linkRate != null) {
      base.set("mapreduce.shuffle.courier.linkRate", linkRate);
    }
    settings.forEach(base::set);
    base.set(YarnConfiguration.RM_HOSTNAME, "127.0.0.1");
    base.set("yarn.nodemanager.hostname", "127.0.0.1");
    base.set("yarn.scheduler.capacity.maximum-am-resource-percent", "0.6");
    base.setInt(YarnConfiguration.NM_PMEM_MB, 3072);
    base.setInt(YarnConfiguration.NM_VCORES, 4);
    base.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 256);
    base.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    base.setInt("yarn.app.mapreduce.am.resource.mb", 512);
    base.set("yarn.app.mapreduce.am.command-opts", "-Xmx300m");
    base.setInt("mapreduce.map.memory.mb", 384);
    base.setInt("mapreduce.reduce.memory.mb", 384);
    base.set("mapreduce.map.java.opts", "-Xmx256m -XX:TieredStopAtLevel=1");
    base.set("mapreduce.reduce.java.opts", "-Xmx256m -XX:TieredStopAtLevel=1");
    MiniMRYarnCluster c = new MiniMRYarnCluster(name, nodeManagers);
    c.init(new PinnedConfiguration(base, pins));
    c.start();
    return new CourierMiniCluster(c, nodeManagers);
  }

  /**
   * The shuffle handlers of the NodeManagers (one each), as their NodeManagers run them. YARN keeps
   * its aux services behind a package-private accessor, read here by reflection (test harness only;
   * the handler has no registry of its own).
   */
  public List<CourierShuffleHandler> handlers() {
    List<CourierShuffleHandler> out = new ArrayList<>();
    for (int i = 0; i < nodeManagers; i++) {
      AuxServices aux = cluster.getNodeManager(i).getNMContext().getAuxServices();
      try {
        Method services = AuxServices.class.getDeclaredMethod("getServices");
        services.setAccessible(true);
        for (Object s : (Collection<?>) services.invoke(aux)) {
          if (s instanceof CourierShuffleHandler) {
            out.add((CourierShuffleHandler) s);
          }
        }
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot list the aux services of NodeManager " + i, e);
      }
    }
    return out;
  }

  /** The configuration jobs are submitted with (the cluster's addresses and the keys above). */
  public Configuration config() {
    return new Configuration(cluster.getConfig());
  }

  @Override
  public void close() {
    cluster.stop();
  }

  /**
   * A configuration whose pinned keys ignore later writes: MiniMRYarnCluster sets {@code
   * mapreduce_shuffle}'s class to the stock ShuffleHandler while it initialises, after the caller's
   * settings; the operator's yarn-site.xml has no such override.
   */
  static final class PinnedConfiguration extends YarnConfiguration {
    private final Map<String, String> pins;

    PinnedConfiguration(Configuration c, Map<String, String> pins) {
      super(c);
      this.pins = pins;
      pins.forEach(super::set);
    }

    @Override
    public void set(String name, String value, String source) {
      super.set(name, pins != null && pins.containsKey(name) ? pins.get(name) : value, source);
    }
  }
}
