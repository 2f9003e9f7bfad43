package org.coflow.courier.serve;

import java.io.IOException;

/** The blocks one local process registered: a Spark executor's or a MapReduce job's map outputs. */
public interface BlockSet {

  /** Its {@link org.coflow.courier.protocol.BlockSetId} in wire form. */
  String id();

  /**
   * The registered directories (real paths): nothing outside them is read or written for the set.
   */
  java.util.List<java.nio.file.Path> dirs();

  /**
   * Whether the set's blocks carry their engine's checksums; an unverified set's blocks go out with
   * checksum {@code NONE}.
   */
  default boolean verified() {
    return true;
  }

  /**
   * Finds a block's bytes. Never resolves to a file outside the set's registered directories.
   *
   * @param auth the request's credentials ({@code BlockRef.auth}); sets registered with a secret
   *     check them before anything else
   * @throws org.coflow.courier.protocol.ProtocolException FORBIDDEN for missing or wrong
   *     credentials, NOT_FOUND for a block that does not exist, INVALID for a malformed name,
   *     CORRUPT for an index that contradicts its data file
   * @throws IOException if reading the index fails
   */
  BlockSegment resolve(String block, String auth) throws IOException;
}
