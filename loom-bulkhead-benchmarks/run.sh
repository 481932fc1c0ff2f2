#!/usr/bin/env bash
# Builds the benchmarks and runs the whole suite: JMH (burst, uncontended overhead, HTTP path) plus the
# memory and fairness harnesses and the adaptive-limit simulation, then writes
# loom-bulkhead-benchmarks/target/benchmark-results/benchmarks.md.
#
#   loom-bulkhead-benchmarks/run.sh                         # short settings, about 6 minutes on 2 cores
#   loom-bulkhead-benchmarks/run.sh --long                  # 3 forks, more iterations: about 50 minutes
#   loom-bulkhead-benchmarks/run.sh --only=memory,fairness  # some parts: burst,overhead,http,memory,fairness,adaptive
#   loom-bulkhead-benchmarks/run.sh --only=adaptive         # the adaptive-limit simulation alone, seconds
#   loom-bulkhead-benchmarks/run.sh --docs=docs/benchmarks.md  # also refresh the tables in that page
#   loom-bulkhead-benchmarks/run.sh --skip-build ...        # reuse target/benchmarks.jar
#
# Needs a JDK 21+ in JAVA_HOME or in a standard place (/usr/lib/jvm, ...); JAVA_HOME may be unset.
# Measure on a quiet machine: the report records the load average at start and end.
set -euo pipefail
cd "$(dirname "$0")/.."

jdk_major() {
  [ -f "$1/release" ] || return 1
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release"
}

find_java() {
  best="" best_major=0
  for home in "${JAVA_HOME:-}" /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* \
      "$HOME"/.jdks/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -n "$home" ] && [ -x "$home/bin/java" ] || continue
    major=$(jdk_major "$home") || continue
    if [ -n "$major" ] && [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
      best="$home/bin/java" best_major=$major
    fi
  done
  [ -n "$best" ] && echo "$best"
}

JAVA=$(find_java) || {
  echo "run.sh needs a JDK 21 or newer: install one into /usr/lib/jvm (e.g. 'apt-get install openjdk-21-jdk') or set JAVA_HOME to it." >&2
  exit 1
}

build=true
args=()
for arg in "$@"; do
  if [ "$arg" = "--skip-build" ]; then build=false; else args+=("$arg"); fi
done

if $build; then
  ./mvnw -B -q -pl loom-bulkhead-benchmarks -am package -DskipTests
fi

echo "Using $JAVA ($("$JAVA" -version 2>&1 | head -1)); load average now: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
if command -v pgrep >/dev/null 2>&1 && pgrep -f 'maven|surefire' >/dev/null 2>&1; then
  echo "warning: other Maven or test JVMs are running; numbers will be noisy" >&2
fi

exec "$JAVA" -jar loom-bulkhead-benchmarks/target/benchmarks.jar \
  --out=loom-bulkhead-benchmarks/target/benchmark-results \
  "--command=loom-bulkhead-benchmarks/run.sh${args[*]+ ${args[*]}}" \
  ${args[@]+"${args[@]}"}
