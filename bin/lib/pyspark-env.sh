#!/usr/bin/env bash
# Makes sure a Python venv with pyspark (which carries a real spark-submit) exists and prints its
# directory. Cached: the first run of a version downloads it from PyPI (320-460 MB), later runs
# reuse it.
#   COFLOW_CACHE      where to keep it (default ~/.cache/coflow)
#   COFLOW_PYSPARK    the pyspark version (default 3.5.9, Scala 2.12: the courier-spark-3.5_2.12 jar;
#                     4.x is Scala 2.13: the courier-spark-4_2.13 jar)
set -euo pipefail
version="${COFLOW_PYSPARK:-3.5.9}"
cache="${COFLOW_CACHE:-$HOME/.cache/coflow}"
venv="$cache/pyspark-$version"
if [[ ! -x "$venv/bin/spark-submit" ]]; then
  command -v python3 >/dev/null || { echo "coflow: python3 is needed for pyspark's spark-submit" >&2; exit 1; }
  echo "coflow: installing pyspark==$version into $venv (first run only; 320-460 MB)..." >&2
  mkdir -p "$cache"
  rm -rf "$venv.tmp"
  trap 'rm -rf "$venv.tmp"' EXIT # a failed install (no such version, no network) leaves nothing
  python3 -m venv "$venv.tmp"
  "$venv.tmp/bin/pip" install --quiet --disable-pip-version-check "pyspark==$version" >&2
  # pip writes absolute paths into the venv's scripts: build aside, then fix them as we move it.
  grep -rl "$venv.tmp" "$venv.tmp/bin" | xargs -r sed -i "s|$venv.tmp|$venv|g"
  rm -rf "$venv"
  mv "$venv.tmp" "$venv"
fi
echo "$venv"
