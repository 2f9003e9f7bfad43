package org.coflow.master.service;

import java.util.List;
import org.coflow.core.config.ConfigKey;
import org.coflow.core.config.ConfigRegistry;
import org.coflow.core.config.ConfigType;
import org.coflow.core.policy.Policies;

/**
 * Configuration keys of the master service ({@code coflow.master.*}). The scheduling interval Δ is
 * the policies' own {@code coflow.policy.delta}: the loop runs at the interval the policies assume.
 */
public final class MasterConfig implements ConfigRegistry.Provider {
  public static final ConfigRegistry REGISTRY =
      new ConfigRegistry(
          "Master service",
          "The coflow master (`bin/coflow master`): its gRPC control plane, scheduling loop, dashboard "
              + "and metrics (`coflow.master.*`). The loop runs every `coflow.policy.delta`.");

  private static final String V = "0.1.0";

  public static final ConfigKey<String> HOST =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.host", ConfigType.STRING)
              .defaultValue("127.0.0.1")
              .doc(
                  "Address the gRPC and HTTP servers bind to (0.0.0.0: every interface). Any address "
                      + "but loopback needs authentication (`coflow.master.auth.tokenFile` or "
                      + "`coflow.master.tls.clientCaFile`) or `coflow.master.insecure=true`; "
                      + "docs/security.md.")
              .since(V)
              .build());

  public static final ConfigKey<Integer> PORT =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.port", ConfigType.INT)
              .defaultValue(7090)
              .doc("gRPC port agents and frameworks connect to; 0 picks a free port.")
              .check(v -> v >= 0 && v <= 65535, "between 0 and 65535")
              .since(V)
              .build());

  public static final ConfigKey<Integer> HTTP_PORT =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.http.port", ConfigType.INT)
              .defaultValue(7091)
              .doc(
                  "HTTP port of the dashboard, the JSON API and `/metrics`; 0 picks a free port, -1 turns "
                      + "HTTP off.")
              .check(v -> v >= -1 && v <= 65535, "between -1 and 65535")
              .since(V)
              .build());

  public static final ConfigKey<String> POLICY =
      REGISTRY.add(
          ConfigKey.builder(
                  "coflow.master.policy", ConfigType.oneOf(Policies.NAMES.toArray(new String[0])))
              .defaultValue("aalo")
              .doc(
                  "Scheduling policy at start-up; switchable at run time (AdminService.SetPolicy, the "
                      + "dashboard).")
              .since(V)
              .build());

  public static final ConfigKey<Long> SESSION_TIMEOUT_MS =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.sessionTimeout", ConfigType.DURATION_MS)
              .defaultValue(10_000L)
              .doc(
                  "An agent session that sends no report batch for this long is expired and its flows "
                      + "dropped.")
              .check(v -> v > 0, "positive")
              .since(V)
              .build());

  public static final ConfigKey<Double> DEFAULT_CAPACITY =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.defaultCapacity", ConfigType.BIT_RATE)
              .defaultValue(10e9 / 8)
              .doc(
                  "Link capacity assumed for a host whose agent declares none (or has not registered).")
              .check(v -> v > 0, "positive")
              .since(V)
              .build());

  public static final ConfigKey<Double> PUSH_TOLERANCE =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.pushTolerance", ConfigType.DOUBLE)
              .defaultValue(0.01)
              .doc(
                  "A flow's rate is pushed again only when it moved by more than this fraction of the "
                      + "rate last pushed (priorities always); 0 pushes every change.")
              .check(v -> v >= 0 && v < 1, "at least 0 and below 1")
              .since(V)
              .build());

  public static final ConfigKey<Integer> MAX_REPORTS_PER_BATCH =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxReportsPerBatch", ConfigType.INT)
              .defaultValue(100_000)
              .doc("Largest number of flow reports one ReportBatch may carry.")
              .check(v -> v > 0, "positive")
              .since(V)
              .build());

  public static final ConfigKey<Integer> MAX_HOSTS =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxHosts", ConfigType.INT)
              .defaultValue(2048)
              .doc(
                  "Most distinct host ids (agents and flow ends) the master accepts; sessions and flows "
                      + "naming more are refused with RESOURCE_EXHAUSTED. The scheduling model keeps "
                      + "state per host and per host pair that carries flows, so its memory follows "
                      + "the hosts and the flows, not the square of this number.")
              .check(v -> v >= 2 && v <= 16384, "between 2 and 16384")
              .since(V)
              .build());

  public static final ConfigKey<Long> MAX_MESSAGE_BYTES =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxMessageSize", ConfigType.BYTES)
              .defaultValue(32L << 20)
              .doc("Largest gRPC message the master accepts.")
              .check(v -> v > 0 && v <= Integer.MAX_VALUE, "positive and below 2 GiB")
              .since(V)
              .build());

  public static final ConfigKey<Long> KEEPALIVE_MS =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.keepalive", ConfigType.DURATION_MS)
              .defaultValue(10_000L)
              .doc(
                  "HTTP/2 keepalive ping interval on agents' long-lived streams; clients may ping this "
                      + "often too.")
              .check(v -> v >= 1000, "at least 1 s")
              .since(V)
              .build());

  public static final ConfigKey<String> IDENTIFY_MODE =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.identify.mode", ConfigType.STRING)
              .defaultValue("coda")
              .doc(
                  "How flows reported without a coflow id are grouped into coflows: `coda` clusters them "
                      + "with CODA's incremental Rough-DBSCAN (docs/identify.md); `attribute` groups them by the "
                      + "flow attribute `coflow.master.identify.attribute`.")
              .check(v -> v.equals("coda") || v.equals("attribute"), "coda or attribute")
              .since(V)
              .build());

  public static final ConfigKey<String> IDENTIFY_ATTRIBUTE =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.identify.attribute", ConfigType.STRING)
              .defaultValue("job")
              .doc(
                  "With `coflow.master.identify.mode=attribute`: a flow reported without a coflow id joins "
                      + "the coflow `<attribute>=<value>` of this flow attribute; without the attribute it forms "
                      + "a coflow of its own.")
              .since(V)
              .build());

  public static final ConfigKey<String> IDENTIFY_METRIC =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.identify.metric", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "CODA: a weights file written by `bin/coflow bench identify --learn FILE` (properties "
                      + "spark.time, spark.community, spark.port, hadoop.time, hadoop.community, hadoop.port). "
                      + "Empty: the paper's learned weights.")
              .since(V)
              .build());

  public static final ConfigKey<Double> IDENTIFY_EPS =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.identify.eps", ConfigType.DOUBLE)
              .defaultValue(1.0)
              .doc(
                  "CODA: DBSCAN's radius ε over leaders, in metric units (with the default weights, "
                      + "flows of one community 0.51 s apart are 1.0 apart).")
              .check(v -> v > 0 && v < 1e6, "between 0 (exclusive) and 1e6")
              .since(V)
              .build());

  public static final ConfigKey<Double> IDENTIFY_TAU =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.identify.tau", ConfigType.DOUBLE)
              .defaultValue(0.5)
              .doc(
                  "CODA: a leader's range τ (at most ε); a new flow within τ of a leader follows it.")
              .check(v -> v >= 0 && v < 1e6, "between 0 and 1e6")
              .since(V)
              .build());

  public static final ConfigKey<Long> IDENTIFY_REPORT_DELAY_MS =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.identify.reportDelay", ConfigType.DURATION_MS)
              .defaultValue(2000L)
              .doc(
                  "CODA: how late a flow's start may reach the master (an agent reports a flow "
                      + "once it has sent `coflow.coda.minFlowBytes`, at its next report). A flow "
                      + "that ended stays in the clustering until the master's clock is past its "
                      + "start by ε's time reach plus this, so that a straggler reported after its "
                      + "siblings ended still joins their coflow.")
              .check(v -> v >= 0 && v <= 3_600_000, "between 0 and 1 h")
              .since(V)
              .build());

  public static final ConfigKey<Integer> IDENTIFY_HADOOP_PORT =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.identify.hadoopPort", ConfigType.INT)
              .defaultValue(13562)
              .doc(
                  "CODA: a flow whose `src_port` attribute is this port is a Hadoop shuffle flow "
                      + "(mapreduce.shuffle.port).")
              .check(v -> v >= 1 && v <= 65535, "a port number")
              .since(V)
              .build());

  public static final ConfigKey<String> TOKEN_FILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.auth.tokenFile", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "A file holding the shared token every gRPC call (agents, frameworks, operators) "
                      + "and every state-changing HTTP request must carry as `authorization: Bearer "
                      + "<token>`; 16 to 4096 visible ASCII characters (`openssl rand -hex 32`). The "
                      + "file must not be readable by group or others (chmod 600), or the master "
                      + "refuses to start. Empty: no token.")
              .since(V)
              .build());

  public static final ConfigKey<String> OPERATOR_TOKEN_FILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.auth.operatorTokenFile", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "A file holding the operators' token, different from "
                      + "`coflow.master.auth.tokenFile` (same rules for the file). When set, "
                      + "switching the policy (AdminService.SetPolicy, `POST /api/policy`) needs "
                      + "it, and the agents' token only lets its holders open sessions, report "
                      + "flows, register coflows and receive schedules. Empty: every caller the "
                      + "master admits may switch the policy.")
              .since(V)
              .build());

  public static final ConfigKey<String> TLS_CERT_FILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.tls.certFile", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "The master's certificate chain (PEM) for gRPC over TLS, with "
                      + "`coflow.master.tls.keyFile`. Empty: plaintext gRPC.")
              .since(V)
              .build());

  public static final ConfigKey<String> TLS_KEY_FILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.tls.keyFile", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "The private key (PKCS#8 PEM, e.g. `openssl pkcs8 -topk8 -nocrypt`) of "
                      + "`coflow.master.tls.certFile`; must not be readable by group or others.")
              .since(V)
              .build());

  public static final ConfigKey<String> TLS_CLIENT_CA_FILE =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.tls.clientCaFile", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "Mutual TLS: CA certificates (PEM) that must have signed every client's certificate; "
                      + "a client's certificate subject is its identity, so a host id held by one "
                      + "certificate cannot be taken by another. Needs `coflow.master.tls.certFile`. "
                      + "Empty: clients present no certificate.")
              .since(V)
              .build());

  public static final ConfigKey<Boolean> INSECURE =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.insecure", ConfigType.BOOLEAN)
              .defaultValue(false)
              .doc(
                  "Lets a master without authentication (no token, no client certificates) bind to an "
                      + "address other than loopback: anyone who reaches its ports can then open "
                      + "sessions for any host, register coflows and switch the policy.")
              .since(V)
              .build());

  public static final ConfigKey<Integer> MAX_NAME_LENGTH =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxNameLength", ConfigType.INT)
              .defaultValue(512)
              .doc(
                  "Longest string, in characters, the master stores from a request: host ids, "
                      + "addresses, coflow ids and names, flow attribute and label keys and values. "
                      + "Longer ones are refused with INVALID_ARGUMENT.")
              .check(v -> v >= 16 && v <= 1 << 20, "between 16 and 1048576")
              .since(V)
              .build());

  public static final ConfigKey<Integer> MAX_ATTRIBUTES =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxAttributes", ConfigType.INT)
              .defaultValue(64)
              .doc("Most attributes one flow spec, and most labels one session, may carry.")
              .check(v -> v >= 0, "0 or more")
              .since(V)
              .build());

  public static final ConfigKey<Integer> MAX_FLOWS_PER_SESSION =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxFlowsPerSession", ConfigType.INT)
              .defaultValue(50_000)
              .doc(
                  "Most unfinished flows one agent session may have reported; a batch that would "
                      + "go past it is refused whole with RESOURCE_EXHAUSTED.")
              .check(v -> v > 0, "positive")
              .since(V)
              .build());

  public static final ConfigKey<Long> MAX_SESSION_BYTES =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxSessionBytes", ConfigType.BYTES)
              .defaultValue(8L << 20)
              .doc(
                  "Most bytes of names and attributes (coflow ids, host ids, attribute keys and "
                      + "values; two bytes a character) one agent session's unfinished flows may "
                      + "hold; a batch that would go past it is refused whole with "
                      + "RESOURCE_EXHAUSTED. A flow's share is at most "
                      + "`coflow.master.maxAttributes` pairs of `coflow.master.maxNameLength`.")
              .check(v -> v >= 1 << 16 && v <= 1L << 40, "between 64 KiB and 1 TiB")
              .since(V)
              .build());

  public static final ConfigKey<Long> MAX_BYTES =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxBytes", ConfigType.BYTES)
              .defaultValue(0L)
              .doc(
                  "Most bytes of names and attributes (counted as for "
                      + "`coflow.master.maxSessionBytes`) all sessions' unfinished flows and all "
                      + "registered coflows (ids, names, pairs' host ids) may hold together; a "
                      + "batch or registration that would go past it is refused whole with "
                      + "RESOURCE_EXHAUSTED. 0 means a quarter of the master's heap (-Xmx), so that "
                      + "sessions that each keep to their own budget cannot exhaust the process "
                      + "together.")
              .check(v -> v == 0 || v >= 1 << 20, "0 or at least 1 MiB")
              .since(V)
              .build());

  public static final ConfigKey<Integer> MAX_HOSTS_PER_SESSION =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxHostsPerSession", ConfigType.INT)
              .defaultValue(256)
              .doc(
                  "Most distinct hosts besides its own that one agent session's unfinished flows "
                      + "may name; a batch that would go past it is refused whole with "
                      + "RESOURCE_EXHAUSTED, so that one session cannot fill "
                      + "`coflow.master.maxHosts` with invented hosts. Raise it where one host "
                      + "exchanges data with more hosts at once.")
              .check(v -> v >= 1 && v <= 16384, "between 1 and 16384")
              .since(V)
              .build());

  public static final ConfigKey<Integer> MAX_FLOWS =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxFlows", ConfigType.INT)
              .defaultValue(1_000_000)
              .doc(
                  "Most unfinished flows all sessions together may have reported; a batch that would "
                      + "go past it is refused whole with RESOURCE_EXHAUSTED.")
              .check(v -> v > 0, "positive")
              .since(V)
              .build());

  public static final ConfigKey<Integer> MAX_SESSIONS_PER_PEER =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxSessionsPerPeer", ConfigType.INT)
              .defaultValue(64)
              .doc(
                  "Most live agent sessions one caller may hold: one identity (a client certificate, "
                      + "else the token or no authentication) from one network address. Callers on "
                      + "the master's own machine (loopback) are exempt: single-machine tests and "
                      + "benchmarks run every agent there.")
              .check(v -> v > 0, "positive")
              .since(V)
              .build());

  public static final ConfigKey<Integer> MAX_COFLOWS =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxCoflows", ConfigType.INT)
              .defaultValue(10_000)
              .doc(
                  "Most coflows registered at once (CoflowService); more are refused with "
                      + "RESOURCE_EXHAUSTED until some are unregistered.")
              .check(v -> v > 0, "positive")
              .since(V)
              .build());

  public static final ConfigKey<Integer> MAX_PAIR_SIZES =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.maxPairSizes", ConfigType.INT)
              .defaultValue(1_000_000)
              .doc(
                  "Most host-pair sizes all registered coflows together may declare; a registration "
                      + "that would go past it is refused with RESOURCE_EXHAUSTED.")
              .check(v -> v > 0, "positive")
              .since(V)
              .build());

  public static final ConfigKey<Integer> HTTP_THREADS =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.http.threads", ConfigType.INT)
              .defaultValue(8)
              .doc(
                  "HTTP responses (dashboard, JSON API, metrics) computed at once; requests still "
                      + "arriving do not hold one (`coflow.master.http.maxRequests`).")
              .check(v -> v >= 1 && v <= 256, "between 1 and 256")
              .since(V)
              .build());

  public static final ConfigKey<Long> HTTP_READ_TIMEOUT_MS =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.http.readTimeout", ConfigType.DURATION_MS)
              .defaultValue(5_000L)
              .doc(
                  "An HTTP request whose headers and body have not all arrived this long after a "
                      + "thread took it up is cut off, so slow or stalled clients cannot hold the "
                      + "HTTP threads; a response must be written within six times this long.")
              .check(v -> v >= 100, "at least 100 ms")
              .since(V)
              .build());

  public static final ConfigKey<Integer> HTTP_MAX_REQUESTS =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.http.maxRequests", ConfigType.INT)
              .defaultValue(256)
              .doc(
                  "Most HTTP requests taken up at once, each on a thread of its own while it "
                      + "arrives (at most `coflow.master.http.readTimeout`), so that slow or silent "
                      + "clients do not hold up others; more wait for one to end.")
              .check(v -> v >= 2 && v <= 4096, "between 2 and 4096")
              .since(V)
              .build());

  public static final ConfigKey<String> HTTP_ALLOWED_HOSTS =
      REGISTRY.add(
          ConfigKey.builder("coflow.master.http.allowedHosts", ConfigType.STRING)
              .defaultValue("")
              .doc(
                  "Comma-separated host names HTTP requests may name in their `Host` header "
                      + "besides IP addresses, `localhost`, `coflow.master.host` and this "
                      + "machine's name (e.g. a DNS alias of the master, or a proxy's name). "
                      + "Requests naming any other host are refused with 421, so that a web page "
                      + "whose DNS name was rebound to the master cannot read it.")
              .since(V)
              .build());

  @Override
  public List<ConfigRegistry> registries() {
    return List.of(REGISTRY);
  }
}
