#!/usr/bin/env bash
# report.html as a reader sees it: rendered by a real headless browser (Debian's chromium),
# every figure must be shown (each <img> loaded, with a width) and the verdict present
# (the "Verdict" heading followed by text). A small script injected into a copy of the
# page writes what it found into the page itself, and chromium's --dump-dom hands the
# page back once it has loaded. Then one figure is deleted and the check must notice, so
# that a checker which sees nothing cannot pass.
# Usage: report_browser_test.sh POLLSCALE DATASET [--screenshot PNG]
# Exit: 0 pass, 1 fail, 77 skipped (no chromium: scripts/setup.sh --tests installs it).
set -euo pipefail
pollscale=$1
dataset=$2
screenshot=
if [[ ${3:-} == --screenshot ]]; then screenshot=${4:?--screenshot needs a file}; fi
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
  echo "report_browser_test: skipped: no chromium here (scripts/setup.sh --tests installs it)"
  exit 77
fi
headless=(timeout 120 "$browser" --headless --no-sandbox --disable-gpu)  # as root in a container: no sandbox
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$pollscale" report "$dataset" --out "$tmp/r" >/dev/null 2>"$tmp/report.err" || {
  cat "$tmp/report.err" >&2
  exit 1
}

# The checker goes in a file of its own beside the page; the page's copy only names it.
cat >"$tmp/check.js" <<'JS'
window.addEventListener("load", () => {
  const imgs = [...document.images];
  const missing = imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute("src"));
  document.body.setAttribute("data-figures", (imgs.length - missing.length) + " of " + imgs.length + " shown" +
                             (missing.length ? "; missing: " + missing.join(" ") : ""));
  const h = [...document.querySelectorAll("h2")].find(e => e.textContent.trim() === "Verdict");
  const next = h ? h.nextElementSibling : null;
  document.body.setAttribute("data-verdict", next && next.textContent.trim().length > 20 ? "present" : "absent");
});
JS

# Renders $tmp/r with the checker; prints "FIGURES|VERDICT" as the page recorded them.
render() {
  cp "$tmp/check.js" "$tmp/r/check.js"
  sed 's#</body>#<script src="check.js"></script></body>#' "$tmp/r/report.html" >"$tmp/r/check.html"
  local dom
  dom=$("${headless[@]}" --virtual-time-budget=10000 --dump-dom "file://$tmp/r/check.html" 2>/dev/null)
  local figures verdict
  figures=$(sed -n 's/.*data-figures="\([^"]*\)".*/\1/p' <<<"$dom" | head -n 1)
  verdict=$(sed -n 's/.*data-verdict="\([^"]*\)".*/\1/p' <<<"$dom" | head -n 1)
  echo "$figures|$verdict"
}

images=$(grep -o '<img ' "$tmp/r/report.html" | wc -l)
if ((images == 0)); then
  echo "report_browser_test: FAIL: the report has no figures" >&2
  exit 1
fi
got=$(render)
want="$images of $images shown|present"
if [[ $got != "$want" ]]; then
  echo "report_browser_test: FAIL: the browser saw '$got', expected '$want'" >&2
  exit 1
fi
echo "report_browser_test: $images of $images figures shown, verdict present"
if [[ -n $screenshot ]]; then
  "${headless[@]}" --hide-scrollbars --window-size=1280,1800 --screenshot="$screenshot" \
    "file://$tmp/r/report.html" >/dev/null 2>&1
  echo "report_browser_test: screenshot in $screenshot"
fi

# The checker must see a missing figure.
first=$(grep -o '<img src="[^"]*"' "$tmp/r/report.html" | head -n 1 | sed 's/<img src="//; s/"$//')
rm -f "$tmp/r/$first"
got=$(render)
if [[ $got != *"missing: $first"* ]]; then
  echo "report_browser_test: FAIL: with $first deleted the browser saw '$got'" >&2
  exit 1
fi
echo "report_browser_test: a deleted figure is seen as missing ($first)"
