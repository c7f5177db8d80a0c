#!/usr/bin/env bash
# The one runner for work on a GPU machine (README.md): scripts/h200/run.sh PLAN OUT [ARGS...]
# runs scripts/h200/plans/PLAN.sh OUT ARGS... from the repository root, with
# the Release build in build-dev (scripts/h200/build_dev.sh makes it), and
# keeps its whole output in OUT/PLAN.log. A plan writes its results as plain
# files directly under OUT and goes on past a failed step (no set -e).
# Without arguments: the plans, each with its first comment line.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
plans=$root/scripts/h200/plans
if [ $# -lt 2 ]; then
  echo "usage: scripts/h200/run.sh PLAN OUT [ARGS...]" >&2
  echo "plans:" >&2
  for p in "$plans"/*.sh; do
    printf '  %-16s %s\n' "$(basename "$p" .sh)" "$(sed -n '2s/^# //p' "$p")" >&2
  done
  exit 2
fi
plan=$1 out=$2
shift 2
case $plan in
  */* | .*) echo "run.sh: a plan is a name from scripts/h200/plans, got '$plan'" >&2; exit 2 ;;
esac
if [ ! -f "$plans/$plan.sh" ]; then
  echo "run.sh: no plan '$plan' (scripts/h200/plans/$plan.sh); the one-off plans that fixtures and notes" >&2
  echo "name are in git history: git show 0179f52:scripts/h200/plans/$plan.sh" >&2
  exit 2
fi
mkdir -p "$out" || exit 3
out=$(cd "$out" && pwd)
cd "$root" || exit 3
# carried as one file (scripts/h200/build_dev.sh makes it): unpacked here, once
if [ ! -x build-dev/gpuwhy ] && [ -f build-dev/carry.tar.xz ]; then
  tar -xJf build-dev/carry.tar.xz || echo "run.sh: warning: build-dev/carry.tar.xz did not unpack" >&2
fi
[ -x build-dev/gpuwhy ] || echo "run.sh: warning: build-dev/gpuwhy is missing (scripts/h200/build_dev.sh makes it)" >&2
{
  echo "== plan $plan $* on $(hostname) at $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  bash "$plans/$plan.sh" "$out" "$@"
  rc=$?
  echo "== plan $plan ended with status $rc at $(date -u '+%H:%M:%S UTC')"
  exit $rc
} 2>&1 | tee "$out/$plan.log"
exit "${PIPESTATUS[0]}"
