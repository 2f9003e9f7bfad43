package org.coflow.core.policy;

import java.util.Arrays;
import java.util.function.IntConsumer;
import org.coflow.core.model.ClusterState;
import org.coflow.core.model.Coflow;

/**
 * The priority order of a {@link Schedule}: every active flow once, most important first, with its
 * class, as a sequence of segments. A segment is a whole coflow (all its active flows, one class),
 * a coflow's flows into the receivers of one class, some of a coflow's flows given by position, or
 * a single flow. Segments keep a decision's cost proportional to the coflows and the flows that
 * move, not to every waiting flow.
 *
 * <p>Valid only for the state it was built for, like its schedule.
 */
final class PriorityOrder {
  private final ClusterState state;
  private final int flows;

  /** Class + 1 of flows appended on their own; 0 when the flow came with its coflow. */
  private int[] flowClass;

  /** Class + 1 of coflows appended whole, by coflow index. */
  private final int[] coflowClass;

  /**
   * By coflow index, for a coflow whose flows have their receiver's class: class + 1 per receiving
   * port; null for the others.
   */
  private final int[][] receiverClass;

  private Coflow[] segCoflow;
  private int[] segFlow;
  private int[] segClass;
  private int segments;
  private int ordered;

  /**
   * Positions (in their coflow's active flows) of the flows of position segments ({@link
   * #appendPositions}): segment k's are {@code positions[segFrom[k] .. segTo[k])}.
   */
  private int[] positions = new int[0];

  private int positionsUsed;
  private int[] segFrom;
  private int[] segTo;

  /**
   * True once the classes of flows appended by position were written to {@link #flowClass} (on the
   * first {@link #priority} call): those entries are not known by index when the order is recycled,
   * so its flow classes are then not reused.
   */
  private boolean positionClassesWritten;

  /**
   * An empty order for {@code state}, on the arrays of {@code spare} (an order its caller no longer
   * reads, cleared here) where they are long enough, or on fresh ones when it is null.
   */
  PriorityOrder(ClusterState state, PriorityOrder spare) {
    this.state = state;
    this.flows = state.flows().size();
    if (spare != null) {
      if (spare.flowClass != null
          && spare.flowClass.length >= flows
          && !spare.positionClassesWritten) {
        this.flowClass = spare.flowClass;
        for (int k = 0; k < spare.segments; k++) {
          if (spare.segCoflow[k] == null) {
            flowClass[spare.segFlow[k]] = 0;
          }
        }
      }
      this.segCoflow = spare.segCoflow;
      this.segFlow = spare.segFlow;
      this.segClass = spare.segClass;
      this.segFrom = spare.segFrom;
      this.segTo = spare.segTo;
      this.positions = spare.positions;
      Arrays.fill(segCoflow, 0, spare.segments, null);
      spare.segments = 0;
    }
    this.coflowClass = new int[state.coflows().size()];
    this.receiverClass = new int[state.coflows().size()][];
    int segs = state.coflows().size() + 16;
    if (segCoflow == null || segCoflow.length < segs) {
      this.segCoflow = new Coflow[segs];
      this.segFlow = new int[segs];
      this.segClass = new int[segs];
      this.segFrom = new int[segs];
      this.segTo = new int[segs];
    }
  }

  /** See {@link Schedule#priority}. */
  int priority(int flow) {
    if (positionsUsed > 0 && !positionClassesWritten) {
      writePositionClasses();
    }
    int c = flowClass == null ? 0 : flowClass[flow];
    if (c > 0) {
      return c - 1;
    }
    int coflow = state.coflowAt(flow).index();
    int[] byReceiver = receiverClass[coflow];
    c = byReceiver == null ? coflowClass[coflow] : byReceiver[state.dstAt(flow)];
    if (c == 0) {
      throw new IllegalStateException("flow " + flow + " was never put in the priority order");
    }
    return c - 1;
  }

  /** See {@link Schedule#append}. */
  void append(int flow, int priorityClass) {
    if (flowClass == null) {
      flowClass = new int[flows];
    }
    flowClass[flow] = priorityClass + 1;
    segment(null, flow, priorityClass);
    ordered++;
  }

  /** See {@link Schedule#appendPositions}. */
  void appendPositions(Coflow c, int[] at, int from, int to, int priorityClass) {
    int n = to - from;
    if (n <= 0) {
      return;
    }
    if (positions.length < positionsUsed + n) {
      positions = Arrays.copyOf(positions, Math.max(positionsUsed + n, 2 * positions.length));
    }
    System.arraycopy(at, from, positions, positionsUsed, n);
    segment(c, POSITIONS, priorityClass);
    segFrom[segments - 1] = positionsUsed;
    positionsUsed += n;
    segTo[segments - 1] = positionsUsed;
    ordered += n;
  }

  /**
   * Marks a segment of flows given by their positions in their coflow ({@link #appendPositions}).
   */
  private static final int POSITIONS = -3;

  /**
   * For a segment of flows given by position: the array holding their positions, from {@link
   * #segmentFrom} to {@link #segmentTo}; null for other segments.
   */
  int[] segmentPositions(int k) {
    return segFlow[k] == POSITIONS ? positions : null;
  }

  int segmentFrom(int k) {
    return segFrom[k];
  }

  int segmentTo(int k) {
    return segTo[k];
  }

  private void writePositionClasses() {
    if (flowClass == null) {
      flowClass = new int[flows];
    }
    for (int k = 0; k < segments; k++) {
      if (segFlow[k] == POSITIONS) {
        Coflow c = segCoflow[k];
        for (int p = segFrom[k], end = segTo[k]; p < end; p++) {
          flowClass[c.activeIndex(positions[p])] = segClass[k] + 1;
        }
      }
    }
    positionClassesWritten = true;
  }

  /** {@link #segFlow} of a segment of all active flows of a coflow. */
  private static final int WHOLE = -1;

  /** See {@link Schedule#appendCoflow}. */
  void appendCoflow(Coflow c, int priorityClass) {
    coflowClass[c.index()] = priorityClass + 1;
    segment(c, WHOLE, priorityClass);
    ordered += c.activeFlows().size();
  }

  /** See {@link Schedule#classByReceiver}. */
  void classByReceiver(Coflow c, int[] classOf) {
    int[] plusOne = new int[classOf.length];
    for (int r = 0; r < classOf.length; r++) {
      plusOne[r] = classOf[r] + 1;
    }
    receiverClass[c.index()] = plusOne;
  }

  /** See {@link Schedule#appendReceivers}. */
  void appendReceivers(Coflow c, int priorityClass) {
    int[] byReceiver = receiverClass[c.index()];
    if (byReceiver == null) {
      throw new IllegalStateException("coflow " + c.id() + " has no classes by receiver");
    }
    segment(c, RECEIVERS, priorityClass);
    for (int rs = 0, re = c.receiverCount(); rs < re; rs++) {
      int r = c.receiver(rs);
      if (byReceiver[r] == priorityClass + 1) {
        ordered += c.activeFlowsTo(r);
      }
    }
  }

  /** Marks a segment of a coflow's flows into the receivers of the segment's class. */
  private static final int RECEIVERS = -2;

  /**
   * For a segment of a coflow's flows into the receivers of one class: class + 1 per receiving port
   * (a flow belongs to the segment if its receiver's entry is the segment's class + 1); null for
   * other segments.
   */
  int[] segmentReceivers(int k) {
    return segFlow[k] == RECEIVERS ? receiverClass[segCoflow[k].index()] : null;
  }

  private void segment(Coflow c, int flow, int priorityClass) {
    if (segments == segFlow.length) {
      segCoflow = Arrays.copyOf(segCoflow, 2 * segments);
      segFlow = Arrays.copyOf(segFlow, 2 * segments);
      segClass = Arrays.copyOf(segClass, 2 * segments);
      segFrom = Arrays.copyOf(segFrom, 2 * segments);
      segTo = Arrays.copyOf(segTo, 2 * segments);
    }
    segCoflow[segments] = c;
    segFlow[segments] = flow;
    segClass[segments++] = priorityClass;
  }

  /** Number of flows in the order (every active flow, once, when complete). */
  int size() {
    return ordered;
  }

  int segments() {
    return segments;
  }

  /** See {@link Schedule#wholeCoflowSegments}. */
  int wholeCoflowSegments(Coflow[] coflows, int[] classes) {
    if (segments > coflows.length || segments > classes.length) {
      return -1;
    }
    for (int k = 0; k < segments; k++) {
      if (segCoflow[k] == null || segFlow[k] != WHOLE) {
        return -1;
      }
      coflows[k] = segCoflow[k];
      classes[k] = segClass[k];
    }
    return segments;
  }

  /**
   * The coflow of a segment of a coflow's flows (all, those into some receivers, or some by
   * position), or null for a single-flow segment.
   */
  Coflow segmentCoflow(int k) {
    return segCoflow[k];
  }

  int segmentFlow(int k) {
    return segFlow[k];
  }

  int segmentClass(int k) {
    return segClass[k];
  }

  /** Appends {@code other}'s segments to this order: see {@link Schedule#appendOrderOf}. */
  void appendAll(PriorityOrder other) {
    for (int k = 0; k < other.segments; k++) {
      Coflow c = other.segCoflow[k];
      int cls = other.segClass[k];
      int flow = other.segFlow[k];
      if (c == null) {
        append(flow, cls);
      } else if (flow == POSITIONS) {
        appendPositions(c, other.positions, other.segFrom[k], other.segTo[k], cls);
      } else if (flow == RECEIVERS) {
        if (receiverClass[c.index()] == null) {
          int[] byReceiver = other.receiverClass[c.index()];
          receiverClass[c.index()] = Arrays.copyOf(byReceiver, byReceiver.length);
        }
        appendReceivers(c, cls);
      } else {
        appendCoflow(c, cls);
      }
    }
  }

  /** See {@link Schedule#orderInto}. */
  int into(int[] flows, int[] classes) {
    int n = 0;
    for (int k = 0; k < segments; k++) {
      Coflow c = segCoflow[k];
      int cls = segClass[k];
      int[] byReceiver = segmentReceivers(k);
      if (c == null) {
        flows[n] = segFlow[k];
        classes[n++] = cls;
      } else if (segFlow[k] == POSITIONS) {
        for (int p = segFrom[k], end = segTo[k]; p < end; p++) {
          flows[n] = c.activeIndex(positions[p]);
          classes[n++] = cls;
        }
      } else {
        for (int i = 0, m = c.activeCount(); i < m; i++) {
          if (byReceiver == null || byReceiver[c.activeDst(i)] == cls + 1) {
            flows[n] = c.activeIndex(i);
            classes[n++] = cls;
          }
        }
      }
    }
    return n;
  }

  /** See {@link Schedule#forEachInOrder}. */
  void forEach(IntConsumer action) {
    for (int k = 0; k < segments; k++) {
      Coflow c = segCoflow[k];
      int[] byReceiver = segmentReceivers(k);
      if (c == null) {
        action.accept(segFlow[k]);
      } else if (segFlow[k] == POSITIONS) {
        for (int p = segFrom[k], end = segTo[k]; p < end; p++) {
          action.accept(c.activeIndex(positions[p]));
        }
      } else if (byReceiver == null) {
        for (int i = 0, n = c.activeCount(); i < n; i++) {
          action.accept(c.activeIndex(i));
        }
      } else {
        int cls = segClass[k] + 1;
        for (int i = 0, n = c.activeCount(); i < n; i++) {
          if (byReceiver[c.activeDst(i)] == cls) {
            action.accept(c.activeIndex(i));
          }
        }
      }
    }
  }
}
