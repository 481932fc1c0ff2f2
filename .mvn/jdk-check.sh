#!/bin/sh
# Stops the build early, with one sentence, when no JDK 21+ is installed where the
# maven-toolchains-plugin looks for one. A ~/.m2/toolchains.xml skips the check.
loom_jdk_major() {
  [ -f "$1/release" ] || return 1
  v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release")
  [ -n "$v" ] && echo "$v"
}
loom_jdk_found() {
  [ -f "$HOME/.m2/toolchains.xml" ] && return 0
  for home in "${JAVA_HOME:-}" $(env | sed -n 's/^JAVA[0-9]*_HOME=//p') \
      /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* \
      "$HOME"/.jdks/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -n "$home" ] && [ -d "$home" ] || continue
    major=$(loom_jdk_major "$home") || continue
    [ "$major" -ge 21 ] 2>/dev/null && return 0
  done
  if command -v java >/dev/null 2>&1; then
    major=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')
    [ "${major:-0}" -ge 21 ] 2>/dev/null && return 0
  fi
  return 1
}
if ! loom_jdk_found; then
  echo "loom-bulkhead needs a JDK 21 or newer: install one (for example 'apt-get install openjdk-21-jdk' or Temurin 21 from adoptium.net) into /usr/lib/jvm or point JAVA_HOME at it, then run again." >&2
  exit 1
fi
