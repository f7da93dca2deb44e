#!/usr/bin/env bash
# The GitHub workflows (.github/workflows/*.yml) pass actionlint, which also checks the
# shell of their run: steps with shellcheck; and the tests workflow runs .ci/run, with its
# cache restored after the checkout (hashFiles of files not checked out yet matches nothing:
# the key would never change). actionlint comes from scripts/test-tools.sh (pinned, cached);
# skipped (77) when it could not be built here, naming why.
#   tests/package/workflow_test.sh SOURCE_DIR
# calls: shellcheck awk
set -euo pipefail
src="$1"
fail() { echo "workflow_test: FAILED: $*" >&2; exit 1; }
if ! actionlint=$(bash "$src/scripts/test-tools.sh" path actionlint 2> /tmp/vpnlab-workflow-test.err); then
  echo "workflow_test: skipped: $(cat /tmp/vpnlab-workflow-test.err)"; rm -f /tmp/vpnlab-workflow-test.err; exit 77
fi
rm -f /tmp/vpnlab-workflow-test.err
cd "$src"
workflows=(.github/workflows/*.yml)
"$actionlint" -shellcheck "$(command -v shellcheck)" "${workflows[@]}" || fail "actionlint found the problems above"
grep -q 'run: bash \.ci/run\|bash \.ci/run$' .github/workflows/tests.yml || fail "tests.yml does not run .ci/run"
# In every job, a cache step comes after the job's first checkout.
for wf in "${workflows[@]}"; do
  awk -v wf="$wf" '
    /^  [A-Za-z0-9_-]+:$/ && in_jobs { checkout = 0 }
    /^jobs:/ { in_jobs = 1 }
    /uses: actions\/checkout@/ { checkout = 1 }
    /uses: actions\/cache(\/restore)?@/ && !checkout { printf "%s:%d: a cache before the checkout\n", wf, NR; bad = 1 }
    END { exit bad }' "$wf" || fail "$wf restores a cache before checking out"
done
echo "workflow_test: ok (${#workflows[@]} workflows, $("$actionlint" -version | head -1))"
