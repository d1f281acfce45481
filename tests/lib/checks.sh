# tests/lib/checks.sh -- sourced by the shell tests (tests/<area>/test_*.sh) after `src` is set:
# a scratch directory $tmp removed on exit, and check STATUS MESSAGE, which counts a passed
# (STATUS 0) or failed check in $pass / $fail and prints MESSAGE for a failed one.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
check() { if [ "$1" = 0 ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "check failed: $2" >&2; fi; }
