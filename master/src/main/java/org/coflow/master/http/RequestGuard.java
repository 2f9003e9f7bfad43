package org.coflow.master.http;

import com.sun.net.httpserver.Headers;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.coflow.master.security.Printable;
import org.coflow.master.security.ServerSecurity;
import org.coflow.master.service.MasterConfig;

/**
 * What an HTTP request must show before the API acts on it.
 *
 * <p>Every request, {@link #checkHost}: its {@code Host} must be a name the master is known by: an
 * IP address, {@code localhost}, the bind host, this machine's name or one of {@code
 * coflow.master.http.allowedHosts}; else 421. A page whose DNS name was rebound to the master's
 * address is same-origin with it for the browser, which would let it read {@code /api/state}; its
 * requests carry that name, never one of ours. (An IP address is safe: no one can rebind it.)
 *
 * <p>A state-changing request (anything but GET and HEAD), {@link #check}: a browser sends a page's
 * cross-site "simple requests" (form and {@code text/plain} bodies) without asking the server
 * first, so:
 *
 * <ul>
 *   <li>an {@code Origin} (or {@code Sec-Fetch-Site}) naming another site is refused: 403;
 *   <li>with a token, {@code Authorization: Bearer} must carry it (the operators' token of {@code
 *       coflow.master.auth.operatorTokenFile} when the master has one, else that of {@code
 *       coflow.master.auth.tokenFile}): 401;
 *   <li>the body must be {@code application/json}, which no simple request can send: 415.
 * </ul>
 */
final class RequestGuard {
  private static final Pattern IP_LITERAL =
      Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}|\\[[0-9a-fA-F:.]+(%[\\w.]+)?\\]");

  private final ServerSecurity security;

  /** Lower-case names, without ports, a request's Host may carry besides IP addresses. */
  private final Set<String> names = new HashSet<>();

  /**
   * @param bindHost {@code coflow.master.host}
   * @param allowedHosts {@code coflow.master.http.allowedHosts}: comma-separated names
   */
  RequestGuard(ServerSecurity security, String bindHost, String allowedHosts) {
    this.security = security;
    allow("localhost");
    allow(bindHost);
    for (String name : allowedHosts.split(",")) {
      allow(name);
    }
    try {
      String self = InetAddress.getLocalHost().getHostName();
      allow(self);
      allow(self.split("\\.", 2)[0]);
    } catch (UnknownHostException e) {
      // This machine's name does not resolve: it cannot be used to reach the master either.
    }
  }

  private void allow(String name) {
    if (!name.isBlank()) {
      names.add(normal(name));
    }
  }

  static boolean changesState(String method) {
    return !method.equals("GET") && !method.equals("HEAD");
  }

  /**
   * @throws HttpError 400 without a Host, 421 for a Host the master is not known by
   */
  void checkHost(Headers h) {
    String host = h.getFirst("Host");
    if (host == null || host.isBlank()) {
      throw new HttpError(400, "the request has no Host header: HTTP/1.1 requires one");
    }
    String name = host.trim();
    if (!name.startsWith("[")) {
      name = name.replaceFirst(":\\d*$", "");
    } else if (name.contains("]:")) {
      name = name.substring(0, name.indexOf("]:") + 1);
    }
    if (IP_LITERAL.matcher(name).matches() || names.contains(normal(name))) {
      return;
    }
    throw new HttpError(
        421,
        "Host '"
            + Printable.of(host, 100)
            + "' is not a name of this master (an IP address, localhost, its bind host or its "
            + "machine's name): it refuses other names so that a web page whose DNS name was "
            + "rebound to its address cannot read it. If this is a name of the master, add it to "
            + MasterConfig.HTTP_ALLOWED_HOSTS.key()
            + " (comma-separated)");
  }

  /**
   * @throws HttpError naming what was refused and why
   */
  void check(String method, String path, Headers h) {
    String host = h.getFirst("Host");
    String origin = h.getFirst("Origin");
    if (origin != null && (host == null || !origin.equalsIgnoreCase("http://" + host))) {
      throw new HttpError(
          403,
          "cross-origin "
              + method
              + " "
              + path
              + " from Origin '"
              + Printable.of(origin, 100)
              + "' refused: the master changes state only for requests from its own pages (Host '"
              + Printable.of(host, 100)
              + "')");
    }
    String site = h.getFirst("Sec-Fetch-Site");
    if (site != null && !site.equals("same-origin") && !site.equals("none")) {
      throw new HttpError(
          403,
          method
              + " "
              + path
              + " refused: the browser says it comes from a "
              + Printable.of(site, 40)
              + " page");
    }
    if (!security.allowsHttp(h.getFirst("Authorization"))) {
      throw new HttpError(
          401,
          method
              + " "
              + path
              + " needs the master's token: send the header 'Authorization: Bearer <token>' with "
              + "the token in "
              + security.httpTokenKey());
    }
    String type = h.getFirst("Content-Type");
    String media = type == null ? "" : type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    if (!media.equals("application/json")) {
      throw new HttpError(
          415,
          method
              + " "
              + path
              + " takes a JSON body (Content-Type: application/json), got "
              + (type == null ? "no Content-Type" : "'" + Printable.of(type, 100) + "'"));
    }
  }

  /** A host name as compared: lower case, without the root's trailing dot. */
  private static String normal(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
  }
}
