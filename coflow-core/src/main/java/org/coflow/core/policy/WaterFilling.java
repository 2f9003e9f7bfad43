package org.coflow.core.policy;

/**
 * True water-filling over sender and receiver ports, the core of every max-min step: entries (a
 * flow, or a pair of ports standing for several flows) rise together; when a resource (an uplink,
 * or {@code ports} + a downlink) saturates, its entries freeze at the level reached and the others
 * keep rising.
 *
 * <p>A coflow's water-filling can be noted in a {@link StepMemo} as it goes (its rise: the
 * resources it started with and each saturation with the flows it froze), so that {@link Refill}
 * can redo it later on the resources alone.
 *
 * <p>Not thread-safe: scratch arrays sized to the fabric.
 */
final class WaterFilling {
  private final int ports;
  private final int[] count;
  private final int[] start;
  private final int[] members;
  private final int[] entries;
  private final int[] live;

  /** {@link #rise}'s scratch: the resources saturating in one step. */
  private final int[] due;

  private final int[] touched;
  private final boolean[] isTouched;
  private int[] list = new int[1024];
  private boolean[] frozen = new boolean[1024];

  // The entries of the water-filling under way, for freezeEntries, and the memo it is noted in.
  private int[] fillUp;
  private int[] fillDown;
  private int[] fillMult;
  private double[] fillLevel;
  private StepMemo noting;

  private final Saturation freezeEntries = this::freezeEntries;

  /**
   * Per member of the water-filling last noted: the saturation that froze it, and the entry of its
   * other end in the memo's {@code otherEnds}.
   */
  private int[] eventOf = new int[1024];

  private int[] slotOf = new int[1024];

  WaterFilling(int ports) {
    this.ports = ports;
    this.count = new int[2 * ports];
    this.start = new int[2 * ports + 1];
    this.members = new int[2 * ports];
    this.entries = new int[2 * ports];
    this.live = new int[2 * ports];
    this.due = new int[2 * ports];
    this.touched = new int[2 * ports];
    this.isTouched = new boolean[2 * ports];
  }

  /** What {@link #rise} does when resource {@code r} saturates at water level {@code at}. */
  interface Saturation {
    /**
     * Freezes the entries of {@code r} still rising at {@code at}, taking their flows off the
     * rising count of each of their resources. It may only lower counts, and touches neither the
     * rise's list of resources nor another resource's residual: {@link #rise} relies on it.
     */
    void saturate(int r, double at);
  }

  /**
   * Entry {@code i} stands for {@code mult[i]} flows on resources {@code up[i]} and {@code
   * down[i]}. Writes each entry's level to {@code level} and takes it from {@code residual}.
   * Resources are listed in the order entries first touch them or, when entries are many ({@code
   * byPorts}), by a scan of the ports (cheaper than a check per entry); the order only decides
   * which of two resources saturating at exactly the same level is taken first. If {@code noting}
   * is not null (entries of one flow each), the rise is noted in it, and {@link #eventOf()} and
   * {@link #slotOf()} give each entry's saturation and slot.
   */
  void fill(
      int[] up,
      int[] down,
      int[] mult,
      int n,
      double[] residual,
      double[] level,
      boolean byPorts,
      StepMemo noting) {
    if (n == 0) {
      return;
    }
    if (list.length < 2 * n) {
      list = new int[2 * n];
      frozen = new boolean[n];
    }
    boolean few = !byPorts;
    int t = 0;
    // Entries come in runs on one resource (a coflow's flows into one receiver, a sender's pairs):
    // a run's counts are summed in registers and stored once, not read back entry after entry.
    int runUp = up[0];
    int runDown = down[0];
    int upCount = 0;
    int upEntries = 0;
    int downCount = 0;
    int downEntries = 0;
    for (int i = 0; i < n; i++) {
      int u = up[i];
      int d = down[i];
      if (few) {
        t = touch(u, t);
        t = touch(d, t);
      }
      if (u != runUp) {
        count[runUp] += upCount;
        entries[runUp] += upEntries;
        runUp = u;
        upCount = 0;
        upEntries = 0;
      }
      if (d != runDown) {
        count[runDown] += downCount;
        entries[runDown] += downEntries;
        runDown = d;
        downCount = 0;
        downEntries = 0;
      }
      upCount += mult[i];
      upEntries++;
      downCount += mult[i];
      downEntries++;
      frozen[i] = false;
    }
    count[runUp] += upCount;
    entries[runUp] += upEntries;
    count[runDown] += downCount;
    entries[runDown] += downEntries;
    for (int r = 0; !few && r < 2 * ports; r++) {
      if (entries[r] > 0) {
        isTouched[r] = true;
        touched[t++] = r;
      }
    }
    // Counting sort of entries by resource: list[start[r] .. start[r+1]) are r's entries.
    int pos = 0;
    for (int k = 0; k < t; k++) {
      int r = touched[k];
      start[r] = pos;
      members[r] = pos;
      pos += entries[r];
    }
    for (int i = 0; i < n; i++) {
      list[members[up[i]]++] = i;
      list[members[down[i]]++] = i;
    }
    // The resources with entries rise in touch order.
    System.arraycopy(touched, 0, live, 0, t);
    if (noting != null) {
      noteRiseStart(noting, t, n, byPorts);
    }
    fillUp = up;
    fillDown = down;
    fillMult = mult;
    fillLevel = level;
    this.noting = noting;
    rise(live, t, count, residual, due, freezeEntries);
    fillUp = null;
    fillDown = null;
    fillMult = null;
    fillLevel = null;
    this.noting = null;
    untouch(t);
  }

  /** Per entry of the fill last noted: the saturation that froze it. */
  int[] eventOf() {
    return eventOf;
  }

  /** Per entry of the fill last noted: its other end's entry in the memo's {@code otherEnds}. */
  int[] slotOf() {
    return slotOf;
  }

  /**
   * The rise of the water level, shared by {@link #fill}, {@link Refill}, {@link PairShares#fill}
   * and {@link LevelPairCounts#fill}: all entries still rising rise together by the smallest fair
   * share {@code residual[r] / count[r]} among the {@code alive} resources listed in {@code live};
   * every resource then at or below {@link PortBudget#EPS} saturates (in list order), and resources
   * nothing rises on any more drop out of the list (in place, keeping the order, so ties go to the
   * same resource as in a full scan). {@code count[r]} is the number of flows still rising on
   * resource r; {@code due} is scratch of at least {@code alive} entries. A round's smallest share
   * comes from the last round's lowering pass when the saturations in between left its resource's
   * count alone: they only lower counts ({@link Saturation}), so no other share can have shrunk.
   */
  static void rise(
      int[] live, int alive, int[] count, double[] residual, int[] due, Saturation saturation) {
    double at = 0;
    // The next round's smallest share, when the lowering pass of this round could find it: the
    // resource and its count then.
    int next = -1;
    int nextCount = 0;
    double nextStep = Double.POSITIVE_INFINITY;
    while (true) {
      double step;
      int argmin;
      if (next >= 0 && count[next] == nextCount) {
        // Found by the last lowering pass among the resources not due to saturate, from the
        // residuals this round reads and the counts before its saturations. A saturation only
        // lowers counts, so no other resource's share can have shrunk (division rounds
        // monotonically), and this one's is unchanged: still the first smallest in list order.
        step = nextStep;
        argmin = next;
      } else {
        step = Double.POSITIVE_INFINITY;
        // A resource whose residual is above step * count, as rounded, is above it exactly too (a
        // double above the rounded product is above the product: rounding is monotone), so its
        // share is above step exactly and at least step once rounded: it cannot be the new
        // minimum and is passed over without a division (most are). The minimum is the one the
        // divisions find, bit for bit.
        // The lowering pass below drops the resources nothing rises on.
        argmin = -1;
        for (int k = 0; k < alive; k++) {
          int r = live[k];
          int c = count[r];
          if (c > 0) {
            double left = residual[r];
            if (!(left > step * c)) {
              double s = Math.max(0, left) / c;
              if (s < step) {
                step = s;
                argmin = r;
              }
            }
          }
        }
      }
      if (argmin < 0) {
        return;
      }
      at += step;
      // One pass lowers every residual and lists the resources that saturate; they saturate
      // afterwards, in list order. A saturation only lowers other resources' counts, so this is
      // the same as lowering every residual first and then checking each resource in turn, as
      // long as each one's count is checked again when its turn comes. The same pass drops the
      // resources nothing rises on and looks for the next round's smallest share among those not
      // due, as the scan above would: a resource due has no count left once it saturates, or
      // the next round scans (below).
      int dueSize = 0;
      int kept = 0;
      next = -1;
      nextStep = Double.POSITIVE_INFINITY;
      for (int k = 0; k < alive; k++) {
        int r = live[k];
        int c = count[r];
        if (c <= 0) {
          continue;
        }
        live[kept++] = r;
        double left = r == argmin ? 0 : residual[r] - step * c;
        residual[r] = left;
        if (left <= PortBudget.EPS) {
          due[dueSize++] = r;
        } else if (!(left > nextStep * c)) {
          double s = left / c;
          if (s < nextStep) {
            nextStep = s;
            next = r;
          }
        }
      }
      alive = kept;
      if (next >= 0) {
        nextCount = count[next];
      }
      for (int k = 0; k < dueSize; k++) {
        int r = due[k];
        if (count[r] > 0) {
          residual[r] = Math.max(0, residual[r]);
          saturation.saturate(r, at);
          if (count[r] != 0) {
            next = -1; // not drained by its saturation: the scan above decides
          }
        }
      }
    }
  }

  /** Freezes resource r's entries still rising (listed by the counting sort of {@link #fill}). */
  private void freezeEntries(int r, double at) {
    StepMemo m = noting;
    if (m != null) {
      noteSaturation(m, r, at);
      return;
    }
    int[] up = fillUp;
    int[] down = fillDown;
    int[] mult = fillMult;
    for (int j = start[r], end = members[r]; j < end; j++) {
      int i = list[j];
      if (!frozen[i]) {
        frozen[i] = true;
        fillLevel[i] = at;
        count[up[i]] -= mult[i];
        count[down[i]] -= mult[i];
      }
    }
  }

  /** Notes the start of the rise of a coflow's water-filling (entries of one flow each). */
  private void noteRiseStart(StepMemo m, int t, int n, boolean byPorts) {
    if (m.riseLive.length < t) {
      int len = Math.max(t, 2 * m.riseLive.length);
      m.riseLive = new int[len];
      m.riseCounts = new int[len];
      m.eventResource = new int[len];
      m.eventEnd = new int[len];
    }
    if (m.otherEnds.length < n) {
      m.otherEnds = new int[Math.max(n, 2 * m.otherEnds.length)];
    }
    if (eventOf.length < n) {
      eventOf = new int[Math.max(n, 2 * eventOf.length)];
      slotOf = new int[eventOf.length];
    }
    for (int k = 0; k < t; k++) {
      m.riseLive[k] = live[k];
      m.riseCounts[k] = count[live[k]];
    }
    m.riseSize = t;
    m.riseByPorts = byPorts;
    m.reorderedByRedo = false;
    m.events = 0;
    m.others = 0;
    m.riseKnown = true;
  }

  /**
   * {@link #freezeEntries} of a coflow's water-filling being noted (entries of one flow each): also
   * notes which resource saturated, the other ends of the entries it froze and, per entry, this
   * saturation.
   */
  private void noteSaturation(StepMemo m, int r, double at) {
    int e = m.events++;
    m.eventResource[e] = r;
    int[] up = fillUp;
    int[] down = fillDown;
    int[] others = m.otherEnds;
    int o = m.others;
    for (int j = start[r], end = members[r]; j < end; j++) {
      int i = list[j];
      if (!frozen[i]) {
        frozen[i] = true;
        fillLevel[i] = at;
        int u = up[i];
        int d = down[i];
        count[u]--;
        count[d]--;
        slotOf[i] = o;
        others[o++] = u == r ? d : u;
        eventOf[i] = e;
      }
    }
    m.others = o;
    m.eventEnd[e] = o;
  }

  private int touch(int r, int t) {
    if (!isTouched[r]) {
      isTouched[r] = true;
      touched[t++] = r;
    }
    return t;
  }

  private void untouch(int t) {
    for (int k = 0; k < t; k++) {
      int r = touched[k];
      isTouched[r] = false;
      count[r] = 0;
      entries[r] = 0;
    }
  }
}
