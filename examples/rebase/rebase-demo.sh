#!/bin/sh
# Rebase a finished solve-issue thread onto a workflow whose reviewer was edited.
#   sh examples/rebase/rebase-demo.sh            (uwf and uwf-mock on PATH; UWF_HOME as you like)
# The planner's and developer's steps are reused (no agent runs for them); the thread parts at
# the reviewer's first step, and the rest runs again, here with uwf-mock's scripted answers.
set -eu
examples=$(cd "$(dirname "$0")/.." && pwd)
mock="uwf-mock --scenario $examples/scenarios/solve-issue.yaml"

# The edit: the reviewer now also checks the changelog. The file keeps its name (solve-issue).
edited=$(mktemp -d)
sed 's/tests and documentation\./tests, documentation and the changelog./' \
  "$examples/solve-issue.yaml" >"$edited/solve-issue.yaml"

id=$(uwf thread start "$examples/solve-issue.yaml" -p "Fix #42: crash when the config file is empty")
uwf thread exec "$id" -c 10 --agent "$mock" --quiet

# What would be reused, and why the thread parts where it does; nothing is stored.
uwf thread rebase "$id" --workflow "$edited/solve-issue.yaml" --dry-run
# The rebase itself: a new thread, run on from the reviewer's first step with the same agent.
uwf thread rebase "$id" --workflow "$edited/solve-issue.yaml" --quiet
rm -r "$edited"
