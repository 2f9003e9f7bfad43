package org.coflow.mr.jobs;

import java.io.IOException;
import java.util.StringTokenizer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/**
 * Small text jobs that exercise the shuffle: word count (with or without combiner), sort, filter.
 */
public final class TextJobs {
  private TextJobs() {}

  /** Emits (word, 1) per token. */
  public static final class Tokens extends Mapper<LongWritable, Text, Text, IntWritable> {
    private static final IntWritable ONE = new IntWritable(1);
    private final Text word = new Text();

    @Override
    protected void map(LongWritable k, Text v, Context ctx)
        throws IOException, InterruptedException {
      StringTokenizer t = new StringTokenizer(v.toString());
      while (t.hasMoreTokens()) {
        word.set(t.nextToken());
        ctx.write(word, ONE);
      }
    }
  }

  /** Sums the counts of a word (also the combiner). */
  public static final class Sum extends Reducer<Text, IntWritable, Text, IntWritable> {
    private final IntWritable out = new IntWritable();

    @Override
    protected void reduce(Text k, Iterable<IntWritable> vs, Context ctx)
        throws IOException, InterruptedException {
      int s = 0;
      for (IntWritable v : vs) {
        s += v.get();
      }
      out.set(s);
      ctx.write(k, out);
    }
  }

  /**
   * Emits each line as a key; lines without the configured marker are dropped (a map may emit
   * nothing).
   */
  public static final class Lines extends Mapper<LongWritable, Text, Text, NullWritable> {
    private String marker;

    @Override
    protected void setup(Context ctx) {
      marker = ctx.getConfiguration().get("textjobs.marker", "");
    }

    @Override
    protected void map(LongWritable k, Text v, Context ctx)
        throws IOException, InterruptedException {
      if (v.toString().contains(marker)) {
        ctx.write(v, NullWritable.get());
      }
    }
  }

  /** Writes every key once per occurrence (so the output is the sorted input). */
  public static final class Keys extends Reducer<Text, NullWritable, Text, NullWritable> {
    @Override
    protected void reduce(Text k, Iterable<NullWritable> vs, Context ctx)
        throws IOException, InterruptedException {
      for (NullWritable v : vs) {
        ctx.write(k, v);
      }
    }
  }

  /** A word count, with the summing reducer as combiner when {@code combiner}. */
  public static Job wordCount(
      Configuration conf, String name, Path in, Path out, int reducers, boolean combiner)
      throws IOException {
    Job job = Job.getInstance(conf, name);
    job.setJarByClass(TextJobs.class);
    job.setMapperClass(Tokens.class);
    if (combiner) {
      job.setCombinerClass(Sum.class);
    }
    job.setReducerClass(Sum.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(IntWritable.class);
    job.setNumReduceTasks(reducers);
    FileInputFormat.addInputPath(job, in);
    FileOutputFormat.setOutputPath(job, out);
    return job;
  }

  /** Sorts the lines containing {@code marker} (all lines for ""). */
  public static Job sortLines(
      Configuration conf, String name, Path in, Path out, int reducers, String marker)
      throws IOException {
    Job job = Job.getInstance(conf, name);
    job.getConfiguration().set("textjobs.marker", marker);
    job.setJarByClass(TextJobs.class);
    job.setMapperClass(Lines.class);
    job.setReducerClass(Keys.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(NullWritable.class);
    job.setNumReduceTasks(reducers);
    FileInputFormat.addInputPath(job, in);
    FileOutputFormat.setOutputPath(job, out);
    return job;
  }
}
