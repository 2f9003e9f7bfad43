package org.coflow.courier.protocol;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * An agent's address as the protocol and the configuration write it: {@code host:port}, or {@code
 * [v6]:port}. The one place addresses are parsed and printed. Immutable.
 */
public final class HostPort {
  private final String host;
  private final int port;

  private HostPort(String host, int port) {
    this.host = host;
    this.port = port;
  }

  public static HostPort of(String host, int port) {
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("an address needs a host");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(
          "port " + port + " of " + host + " is out of range (0 to 65535)");
    }
    return new HostPort(host, port);
  }

  /** The address a socket is bound to or connected to. */
  public static HostPort of(InetSocketAddress address) {
    return of(address.getHostString(), address.getPort());
  }

  /**
   * Parses {@code text}; {@code what} names the value in the error (e.g. a configuration key).
   *
   * @throws IllegalArgumentException naming the value and what is wrong with it
   */
  public static HostPort parse(String text, String what) {
    int colon = text == null ? -1 : text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException(what + " '" + text + "' is not host:port");
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " '" + text + "' has no numeric port");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(what + " '" + text + "': port out of range (1 to 65535)");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return new HostPort(host, port);
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  /** An unresolved-until-connect socket address. */
  public InetSocketAddress toAddress() {
    return new InetSocketAddress(host, port);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HostPort && ((HostPort) o).port == port && ((HostPort) o).host.equals(host);
  }

  @Override
  public int hashCode() {
    return Objects.hash(host, port);
  }

  @Override
  public String toString() {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }
}
