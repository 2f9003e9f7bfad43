package org.coflow.core.policy;

import java.util.Arrays;
import org.coflow.core.model.Coflow;

/**
 * The ends (uplinks, or {@code ports} + downlinks) of a coflow whose flows {@link GreedySteps} must
 * visit from some position on, merged into one stream of positions in increasing order: per end its
 * position list and next entry, and a binary heap of the ends by next position. An end may be
 * followed twice, and a position in two streams is visited once.
 *
 * <p>Not thread-safe: one merge at a time, reused from step to step.
 */
final class FollowedEnds {
  private final int ports;
  private int streams;
  private int streamIds;
  private int[] heap = new int[8];
  private int[] streamResource = new int[8];
  private int[][] streamList = new int[8][];
  private int[] streamSize = new int[8];
  private int[] streamNext = new int[8];

  FollowedEnds(int ports) {
    this.ports = ports;
  }

  /** Follows no end. */
  void clear() {
    streams = 0;
    streamIds = 0;
  }

  /**
   * Makes the flows of a resource (uplink, or {@code ports} + downlink) after position {@code
   * after} part of the stream.
   */
  void follow(Coflow c, int resource, int after) {
    int[] list;
    int count;
    if (resource < ports) {
      list = c.activePositionsFrom(resource);
      count = c.activeFlowsFrom(resource);
    } else {
      list = c.activePositionsTo(resource - ports);
      count = c.activeFlowsTo(resource - ports);
    }
    int from = Arrays.binarySearch(list, 0, count, after);
    from = from < 0 ? -from - 1 : from + 1;
    if (from >= count) {
      return;
    }
    int id = streamIds++;
    if (id == heap.length) {
      int len = 2 * id;
      heap = Arrays.copyOf(heap, len);
      streamResource = Arrays.copyOf(streamResource, len);
      streamList = Arrays.copyOf(streamList, len);
      streamSize = Arrays.copyOf(streamSize, len);
      streamNext = Arrays.copyOf(streamNext, len);
    }
    streamResource[id] = resource;
    streamList[id] = list;
    streamSize[id] = count;
    streamNext[id] = from;
    heap[streams++] = id;
    siftUp(streams - 1);
  }

  /**
   * The next position of a followed end that still has capacity ({@code res}), dropping saturated
   * ends; {@link Integer#MAX_VALUE} if none is left.
   */
  int next(double[] res) {
    while (streams > 0) {
      int top = heap[0];
      if (res[streamResource[top]] > PortBudget.EPS) {
        return streamAt(top);
      }
      removeTop();
    }
    return Integer.MAX_VALUE;
  }

  /** Moves every stream standing at position {@code k} past it. */
  void pass(int k) {
    while (streams > 0 && streamAt(heap[0]) == k) {
      int top = heap[0];
      if (++streamNext[top] == streamSize[top]) {
        removeTop();
      } else {
        siftDown(0);
      }
    }
  }

  private int streamAt(int id) {
    return streamList[id][streamNext[id]];
  }

  private void removeTop() {
    heap[0] = heap[--streams];
    if (streams > 0) {
      siftDown(0);
    }
  }

  private void siftUp(int i) {
    int id = heap[i];
    int key = streamAt(id);
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (streamAt(heap[parent]) <= key) {
        break;
      }
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = id;
  }

  private void siftDown(int i) {
    int id = heap[i];
    int key = streamAt(id);
    while (true) {
      int child = 2 * i + 1;
      if (child >= streams) {
        break;
      }
      if (child + 1 < streams && streamAt(heap[child + 1]) < streamAt(heap[child])) {
        child++;
      }
      if (streamAt(heap[child]) >= key) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = id;
  }
}
