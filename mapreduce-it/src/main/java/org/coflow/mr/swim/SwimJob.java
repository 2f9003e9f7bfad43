package org.coflow.mr.swim;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;

/**
 * One SWIM job as a MapReduce job of its shape: {@code maps} map tasks that together emit {@code
 * shuffle} bytes of random 100-byte records (10-byte key, 90-byte value: SWIM's record), and
 * reducers that write {@code output} bytes (each input record yields output/shuffle records on
 * average). The maps make their records instead of reading a pre-generated input (what the shuffle
 * carries, and so the coflow, is the same; the input read is not what is measured here). A map-only
 * job's maps write the output themselves.
 */
public final class SwimJob {
  static final int KEY = 10;
  static final int VALUE = 90;
  static final int RECORD = KEY + VALUE;

  private SwimJob() {}

  /** A split that stands for one map's share of the records. */
  public static final class Share extends InputSplit implements Writable {
    long records;
    int index;

    public Share() {}

    Share(int index, long records) {
      this.index = index;
      this.records = records;
    }

    @Override
    public long getLength() {
      return records * RECORD;
    }

    @Override
    public String[] getLocations() {
      return new String[0];
    }

    @Override
    public void write(DataOutput out) throws IOException {
      out.writeInt(index);
      out.writeLong(records);
    }

    @Override
    public void readFields(DataInput in) throws IOException {
      index = in.readInt();
      records = in.readLong();
    }
  }

  /** {@code swim.maps} shares of {@code swim.map.records} records in total. */
  public static final class Shares extends InputFormat<LongWritable, NullWritable> {
    @Override
    public List<InputSplit> getSplits(JobContext ctx) {
      int maps = ctx.getConfiguration().getInt("swim.maps", 1);
      long total = ctx.getConfiguration().getLong("swim.map.records", 0);
      List<InputSplit> out = new ArrayList<>();
      for (int i = 0; i < maps; i++) {
        out.add(new Share(i, total / maps + (i < total % maps ? 1 : 0)));
      }
      return out;
    }

    @Override
    public RecordReader<LongWritable, NullWritable> createRecordReader(
        InputSplit split, TaskAttemptContext ctx) {
      return new RecordReader<>() {
        private long n;
        private long at = -1;
        private final LongWritable key = new LongWritable();

        @Override
        public void initialize(InputSplit s, TaskAttemptContext c) {
          n = ((Share) s).records;
        }

        @Override
        public boolean nextKeyValue() {
          if (++at >= n) {
            return false;
          }
          key.set(at);
          return true;
        }

        @Override
        public LongWritable getCurrentKey() {
          return key;
        }

        @Override
        public NullWritable getCurrentValue() {
          return NullWritable.get();
        }

        @Override
        public float getProgress() {
          return n == 0 ? 1 : Math.min(1f, (float) (at + 1) / n);
        }

        @Override
        public void close() {}
      };
    }
  }

  /** One random record per input record. */
  public static final class Emit
      extends Mapper<LongWritable, NullWritable, BytesWritable, BytesWritable> {
    private final BytesWritable k = new BytesWritable(new byte[KEY]);
    private final BytesWritable v = new BytesWritable(new byte[VALUE]);
    private Random random;

    @Override
    protected void setup(Context ctx) {
      random = new Random(ctx.getTaskAttemptID().getTaskID().hashCode());
    }

    @Override
    protected void map(LongWritable key, NullWritable value, Context ctx)
        throws IOException, InterruptedException {
      random.nextBytes(k.getBytes());
      random.nextBytes(v.getBytes());
      ctx.write(k, v);
    }
  }

  /** Per input record, {@code swim.output.ratio} output records on average. */
  public static final class Expand
      extends Reducer<BytesWritable, BytesWritable, BytesWritable, BytesWritable> {
    private double ratio;
    private Random random;

    @Override
    protected void setup(Context ctx) {
      ratio = ctx.getConfiguration().getDouble("swim.output.ratio", 1);
      random = new Random(ctx.getTaskAttemptID().getTaskID().hashCode());
    }

    @Override
    protected void reduce(BytesWritable key, Iterable<BytesWritable> values, Context ctx)
        throws IOException, InterruptedException {
      for (BytesWritable v : values) {
        int n = (int) ratio + (random.nextDouble() < ratio - Math.floor(ratio) ? 1 : 0);
        for (int i = 0; i < n; i++) {
          ctx.write(key, v);
        }
      }
    }
  }

  /** The job for one line of the plan. */
  public static Job create(
      Configuration conf, String name, int maps, int reducers, long shuffle, long output, Path out)
      throws IOException {
    Job job = Job.getInstance(conf, "swim-" + name);
    job.setJarByClass(SwimJob.class);
    Configuration c = job.getConfiguration();
    c.setInt("swim.maps", maps);
    long mapBytes = reducers == 0 ? output : shuffle;
    c.setLong("swim.map.records", Math.max(1, mapBytes / RECORD));
    c.setDouble("swim.output.ratio", shuffle == 0 ? 1 : (double) output / shuffle);
    job.setInputFormatClass(Shares.class);
    job.setMapperClass(Emit.class);
    job.setNumReduceTasks(reducers);
    if (reducers > 0) {
      job.setReducerClass(Expand.class);
    }
    job.setMapOutputKeyClass(BytesWritable.class);
    job.setMapOutputValueClass(BytesWritable.class);
    job.setOutputKeyClass(BytesWritable.class);
    job.setOutputValueClass(BytesWritable.class);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(job, out);
    return job;
  }
}
