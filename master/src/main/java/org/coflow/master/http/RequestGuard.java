package org.coflow.master.http;

import com.sun.net.httpserver.Headers;
import java.util.Locale;
import java.util.regex.Pattern;
import org.coflow.master.security.ServerSecurity;

/**
 * What a state-changing HTTP request (anything but GET and HEAD) must show before the API acts on
 * it. A browser sends a page's cross-site "simple requests" (form and {@code text/plain} bodies)
 * without asking the server first, so:
 *
 * <ul>
 *   <li>an {@code Origin} (or {@code Sec-Fetch-Site}) naming another site is refused: 403;
 *   <li>without a token, the {@code Host} must be an IP address or {@code localhost} (or the
 *       configured bind host), so that a rebound DNS name cannot make another site same-origin;
 *   <li>with a token ({@code coflow.master.auth.tokenFile}), {@code Authorization: Bearer} must
 *       carry it: 401;
 *   <li>the body must be {@code application/json}, which no simple request can send: 415.
 * </ul>
 */
final class RequestGuard {
  private static final Pattern IP_LITERAL =
      Pattern.compile("(\\d{1,3}(\\.\\d{1,3}){3}|\\[[0-9a-fA-F:.]+\\])(:\\d+)?");

  private final ServerSecurity security;
  private final String bindHost;

  RequestGuard(ServerSecurity security, String bindHost) {
    this.security = security;
    this.bindHost = bindHost.toLowerCase(Locale.ROOT);
  }

  static boolean changesState(String method) {
    return !method.equals("GET") && !method.equals("HEAD");
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
              + origin
              + "' refused: the master changes state only for requests from its own pages (Host '"
              + host
              + "')");
    }
    String site = h.getFirst("Sec-Fetch-Site");
    if (site != null && !site.equals("same-origin") && !site.equals("none")) {
      throw new HttpError(
          403,
          method + " " + path + " refused: the browser says it comes from a " + site + " page");
    }
    if (!security.hasToken() && !directHost(host)) {
      throw new HttpError(
          403,
          method
              + " "
              + path
              + " to Host '"
              + host
              + "' refused: without coflow.master.auth.tokenFile the master changes state only "
              + "for requests addressed to an IP address or localhost (a guard against DNS "
              + "rebinding); use http://127.0.0.1:PORT/ or configure a token");
    }
    if (!security.allowsHttp(h.getFirst("Authorization"))) {
      throw new HttpError(
          401,
          method
              + " "
              + path
              + " needs the master's token: send the header 'Authorization: Bearer <token>' with "
              + "the token in coflow.master.auth.tokenFile");
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
              + (type == null ? "no Content-Type" : "'" + type + "'"));
    }
  }

  private boolean directHost(String host) {
    if (host == null) {
      return false;
    }
    String h = host.toLowerCase(Locale.ROOT);
    String name = h.startsWith("[") ? h : h.replaceFirst(":\\d+$", "");
    return IP_LITERAL.matcher(h).matches() || name.equals("localhost") || name.equals(bindHost);
  }
}
