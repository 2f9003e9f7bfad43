package org.apache.hadoop.mapreduce.task.reduce;

import java.io.IOException;
import java.net.URL;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.crypto.SecretKey;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.util.Time;
import org.coflow.api.proto.courier.v1.BlockRef;
import org.coflow.api.proto.courier.v1.RemoteBlock;
import org.coflow.courier.client.BlockStream;
import org.coflow.courier.client.RemoteAgent;
import org.coflow.courier.mapreduce.ReducerAgents;
import org.coflow.courier.protocol.BlockSetId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fetcher thread that takes a map host's outputs through this node's agent, one stream per map
 * output, authenticated with the HMAC the stock fetch would send to that host's shuffle port, and
 * hands each to Hadoop's {@link MapOutput} (which checks the IFile checksum and merges). When the
 * agents cannot deliver a host's outputs (an agent down or unreachable, the job not registered
 * there, a stream cut short) the rest of that host's outputs go through Hadoop's own HTTP fetch
 * ({@link Fetcher#copyFromHost}), which also reports real map output failures to the AM exactly as
 * the stock shuffle does, so maps are re-run when they must be.
 */
class CourierFetcher<K, V> extends Fetcher<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(CourierFetcher.class);

  private final ReducerAgents agents;
  private final SecretKey secret;
  private final String job;
  private final int reduce;
  private final int fetcherId;

  /** As the stock fetch's read timeout: a block that shows no progress this long is given up. */
  private final long idleMillis;

  CourierFetcher(
      JobConf job,
      TaskAttemptID reduceId,
      ShuffleSchedulerImpl<K, V> scheduler,
      MergeManager<K, V> merger,
      Reporter reporter,
      ShuffleClientMetrics metrics,
      ExceptionReporter exceptionReporter,
      SecretKey shuffleKey,
      ReducerAgents agents) {
    super(job, reduceId, scheduler, merger, reporter, metrics, exceptionReporter, shuffleKey);
    this.agents = agents;
    this.secret = shuffleKey;
    this.job = reduceId.getJobID().toString();
    this.reduce = reduceId.getTaskID().getId();
    this.fetcherId = id;
    this.idleMillis =
        job.getInt(org.apache.hadoop.mapreduce.MRJobConfig.SHUFFLE_READ_TIMEOUT, 3 * 60 * 1000);
    setName("courier-fetcher#" + id);
  }

  @Override
  protected void copyFromHost(MapHost host) throws IOException {
    RemoteAgent agent = agents.agentOf(host.getHostName());
    if (agent == null) {
      stock(host);
      return;
    }
    List<TaskAttemptID> maps = scheduler.getMapsForHost(host);
    if (maps.isEmpty()) {
      return;
    }
    Set<TaskAttemptID> remaining = new LinkedHashSet<>(maps);
    boolean fallBack = false;
    try {
      for (TaskAttemptID map : maps) {
        Outcome o = copyOne(host, agent, map);
        if (o == Outcome.WAIT || o == Outcome.STOPPED) {
          // No memory for it yet (like the stock fetcher: give the rest back and come again), or
          // the shuffle is shutting this fetcher down.
          return;
        }
        if (o == Outcome.FAILED) {
          agents.skip(host.getHostName());
          fallBack = true;
          return;
        }
        remaining.remove(map);
      }
    } finally {
      for (TaskAttemptID left : remaining) {
        scheduler.putBackKnownMapOutput(host, left);
      }
      if (fallBack && !isInterrupted()) {
        stock(host);
      }
    }
  }

  /** Hadoop's own HTTP fetch of the host's known map outputs. */
  private void stock(MapHost host) throws IOException {
    int known = host.getNumKnownMapOutputs();
    super.copyFromHost(host);
    int left = host.getNumKnownMapOutputs();
    reporter.incrCounter(
        CourierShuffle.COUNTERS, CourierShuffle.MAPS_VIA_STOCK, Math.max(0, known - left));
  }

  private enum Outcome {
    COPIED,
    WAIT,
    FAILED,
    STOPPED
  }

  private Outcome copyOne(MapHost host, RemoteAgent agent, TaskAttemptID map) throws IOException {
    URL url = new URL(host.getBaseUrl() + map);
    String hmac = SecureShuffleUtils.hashFromString(SecureShuffleUtils.buildMsgFrom(url), secret);
    RemoteBlock block =
        RemoteBlock.newBuilder()
            .setHostId(agent.hostId())
            .setAgentAddress(agent.address().toString())
            .setBlock(
                BlockRef.newBuilder()
                    .setBlockSet(BlockSetId.mapReduce(job).toString())
                    .setBlock(map + "/" + reduce)
                    .setAuth(hmac))
            .setSize(-1)
            .build();
    long start = Time.monotonicNow();
    MapOutput<K, V> out = null;
    try (BlockStream in = agents.stream(job, block).idleTimeout(idleMillis)) {
      long part = in.length();
      long raw = in.rawLength();
      out = merger.reserve(map, raw, fetcherId);
      if (out == null) {
        return Outcome.WAIT;
      }
      out.shuffle(host, in, part, raw, metrics, reporter);
      if (in.read() != -1) {
        throw new IOException(
            "the agent sent more than the " + part + " bytes of " + map + "'s segment");
      }
      scheduler.copySucceeded(map, host, part, start, Time.monotonicNow(), out);
      reporter.incrCounter(CourierShuffle.COUNTERS, CourierShuffle.MAPS_VIA_AGENT, 1);
      reporter.incrCounter(CourierShuffle.COUNTERS, CourierShuffle.BYTES_VIA_AGENT, part);
      metrics.successFetch();
      return Outcome.COPIED;
    } catch (IOException | RuntimeException | InternalError e) {
      // Codecs throw more than IOException on bad input (the stock fetcher wraps those too).
      if (out != null) {
        out.abort();
      }
      if (isInterrupted() || e instanceof java.io.InterruptedIOException) {
        return Outcome.STOPPED;
      }
      LOG.warn(
          "Courier: fetching coflow={} map={} reduce={} remote={} through the agents failed; using the stock "
              + "shuffle for that host",
          job,
          map,
          reduce,
          host.getHostName(),
          e);
      return Outcome.FAILED;
    }
  }
}
