#!/usr/bin/env bash
# hlo-layout explain --graph on every corpus module (real/ with
# --accept-old-dumps) and every target: the .dot is accepted by Graphviz's
# `dot -Tsvg`, and the .html page parses, with one row per copy, each
# linking to a node of the SVG that exists. Under a sanitizer, each module
# on one target in turn.
# Ends with "explain_graph: N passed, M failed[, K skipped]".
set -u
root=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-xla_layout}
[ -d "$root/tools" ] || root=$(cd "$(dirname "$0")/.." && pwd)
tool=$root/tools/hlo-layout
[ -x "$tool" ] || tool=$root/bazel-bin/tools/hlo-layout
# shellcheck source=tests/corpus.sh
source "$root/tests/corpus.sh"
case $corpus_state in
  declined) echo "explain_graph: 0 passed, 0 failed, 1 skipped"; exit 0 ;;
  missing) echo "$corpus_missing_message"; echo "explain_graph: 0 passed, 1 failed"; exit 1 ;;
esac
command -v dot >/dev/null || {
  echo "no Graphviz 'dot' on PATH (scripts/install_deps.sh installs graphviz)"
  echo "explain_graph: 0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Checks $1 (the page) against $2 (the explain --json of the same run).
check_html() {
  python3 - "$1" "$2" <<'PY'
import html.parser, json, sys
class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.rows, self.stack = set(), [], []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a: self.ids.add(a["id"])
        if tag == "tr" and a.get("class") == "copy": self.rows.append(a.get("data-node"))
        if tag == "a" and self.rows and a.get("href") != "#" + str(self.rows[-1]):
            sys.exit("row link %s is not its node %s" % (a.get("href"), self.rows[-1]))
page = Page()
page.feed(open(sys.argv[1], encoding="utf-8").read())
page.close()
copies = json.load(open(sys.argv[2]))["copies_inserted"]
if len(page.rows) != copies:
    sys.exit("%d copy rows for %d copies" % (len(page.rows), copies))
missing = [r for r in page.rows if r not in page.ids]
if missing:
    sys.exit("rows link to nodes that do not exist: %s" % missing[:5])
if "<svg" not in open(sys.argv[1], encoding="utf-8").read():
    sys.exit("no SVG in the page")
PY
}
targets=(default tpu cpu-avx2 cpu-avx512 arm64)
# Under a sanitizer (XLA_LAYOUT_SANITIZER) each module runs on one target,
# the next module on the next: every module and every target, in a fifth
# of the time. The optimized build runs every pair.
sanitized=${XLA_LAYOUT_SANITIZER:-}
passed=0 failed=0 n=0
for f in $corpus_files; do
  n=$((n + 1))
  for t in "${targets[@]}"; do
    [ -n "$sanitized" ] && [ "$t" != "${targets[$((n % ${#targets[@]}))]}" ] && continue
    name="${f#"$corpus_dir"/} on $t"
    if ! "$tool" explain "$f" --passes=layout-assignment --target=$t --accept-old-dumps \
         --graph="$tmp/g.dot" --graph="$tmp/g.html" --json >"$tmp/g.json" 2>"$tmp/err" ||
       ! dot -Tsvg "$tmp/g.dot" >/dev/null 2>>"$tmp/err"; then
      echo "FAIL .dot: $name: $(head -c 500 "$tmp/err")"; failed=$((failed + 1)); continue
    fi
    if ! check_html "$tmp/g.html" "$tmp/g.json" >"$tmp/err" 2>&1; then
      echo "FAIL .html: $name: $(head -c 500 "$tmp/err")"; failed=$((failed + 1)); continue
    fi
    passed=$((passed + 1))
  done
done
echo "explain_graph: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
