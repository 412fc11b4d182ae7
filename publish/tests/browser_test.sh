#!/usr/bin/env bash
# The datasheet in a real browser: publishes a folder of profiles, has headless Chromium render
# every page to a PNG and dump its DOM, and checks that
#   - Chromium loaded each page (its DOM holds the page's <h1>, and the index's comparison table),
#   - no screenshot is blank (ImageMagick counts the colours in it),
#   - every href and src in the pages resolves: a file of the site, or an id of the same page;
#     nothing points outside the site (no network).
# Exits 77 (CTest's SKIP_RETURN_CODE) with a message where Chromium or ImageMagick is missing;
# scripts/install-deps.sh installs both.
#   browser_test.sh <sonde> <profiles folder> <work folder>
set -euo pipefail

sonde=$1 profiles=$2 work=$3

browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then
    browser=$(command -v "$candidate")
    break
  fi
done
if [[ -z "$browser" ]]; then
  echo "SKIPPED: no headless browser (chromium) on the PATH; scripts/install-deps.sh installs" \
       "Debian's chromium. The site was not checked in a browser."
  exit 77
fi
if ! command -v identify >/dev/null 2>&1; then
  echo "SKIPPED: ImageMagick's identify is not installed (Debian imagemagick; scripts/install-deps.sh" \
       "installs it): the screenshots cannot be checked."
  exit 77
fi

rm -rf "$work"
mkdir -p "$work/shots" "$work/dom" "$work/browser-profile"
site="$work/site"
started=$(date +%s)

"$sonde" publish "$profiles" -o "$site"

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# Chromium runs with a profile folder of its own under $work (nothing in $HOME); --no-sandbox: the
# sandbox refuses to run as root, as CI does.
chrome() {
  local name=$1
  shift
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --no-default-browser-check --hide-scrollbars --mute-audio \
    --disable-extensions --disable-background-networking --disable-sync \
    --user-data-dir="$work/browser-profile/$name" "$@" 2>"$work/chromium-$name.log"
}

# Renders every page of a site folder and checks it; counts what fails in `failures`.
check_site() {
local site=$1
local pages=("$site"/*.html)
[[ -e "${pages[0]}" ]] || { fail "$site holds no page"; return; }

# One Chromium run a page, as many at once as there are cores (most of a run is its start): it
# loads the page, writes its screenshot and prints the DOM it built.
parallel=$(nproc 2>/dev/null || echo 2)
running=0
for page in "${pages[@]}"; do
  name=$(basename "$page" .html)
  (
    chrome "$name" --screenshot="$work/shots/$name.png" --window-size=1280,2000 --dump-dom \
      "file://$(realpath "$page")" >"$work/dom/$name.html" || echo "$?" >"$work/dom/$name.failed"
  ) &
  running=$((running + 1))
  if ((running >= parallel)); then
    wait -n
    running=$((running - 1))
  fi
done
wait

for page in "${pages[@]}"; do
  name=$(basename "$page" .html)
  shot="$work/shots/$name.png"
  if [[ -e "$work/dom/$name.failed" ]]; then
    fail "$name: chromium failed (exit $(cat "$work/dom/$name.failed"); $work/chromium-$name.log)"
  fi

  # Loaded: the DOM Chromium built holds the page's heading.
  heading=$(grep -o '<h1>[^<]*</h1>' "$page" | head -n 1)
  if [[ -z "$heading" ]]; then
    fail "$name: the page has no <h1>"
  elif ! grep -qF "$heading" "$work/dom/$name.html"; then
    fail "$name: Chromium's DOM lacks $heading (the page did not load)"
  fi
  if [[ "$name" == index ]] && ! grep -q '<table class="compare">' "$work/dom/$name.html"; then
    fail "index: Chromium's DOM lacks the comparison table"
  fi

  # Rendered: a screenshot that is not blank.
  if [[ ! -s "$shot" ]]; then
    fail "$name: no screenshot"
  else
    colours=$(identify -format '%k' "$shot")
    deviation=$(identify -format '%[fx:standard_deviation]' "$shot")
    if ((colours < 16)) || [[ "$deviation" == 0 ]]; then
      fail "$name: the screenshot is blank ($colours colours, standard deviation $deviation)"
    fi
    echo "$name: rendered, $colours colours"
  fi

  # Links and images: every href and src is a file of the site or an id of this page.
  while IFS= read -r target; do
    [[ -z "$target" ]] && continue
    case "$target" in
      \#*)
        id=${target#\#}
        grep -qE "id=[\"']${id}[\"']" "$page" || fail "$name: $target names no id of the page"
        ;;
      *:* | //*)
        fail "$name: $target points outside the site"
        ;;
      *)
        file=${target%%[#?]*}
        [[ -e "$(dirname "$page")/$file" ]] || fail "$name: $target does not resolve"
        ;;
    esac
  done < <(grep -oE "(href|src)=(\"[^\"]*\"|'[^']*')" "$page" | sed -E "s/^(href|src)=.(.*).$/\2/" |
             sort -u)
done

checked=${#pages[@]}
}

check_site "$site"
pages_checked=$checked
real_failures=$failures

# The checks must be able to fail: a page that renders blank and one whose image and link lead
# nowhere must be caught, or the test above proves nothing.
broken="$work/broken"
mkdir -p "$broken"
printf '<!DOCTYPE html><html><body style="background:#fff"><h1></h1></body></html>\n' \
  >"$broken/blank.html"
printf '<!DOCTYPE html><html><body><h1>Broken</h1><img src="missing.svg"><a href="#nowhere">x</a>%s\n' \
  '<a href="https://example.org/">out</a><p>text</p></body></html>' >"$broken/links.html"
failures=0
check_site "$broken" 2>"$work/broken.log"
if ((failures < 4)); then
  echo "FAIL: the checks caught $failures of the 4 faults planted in $broken ($work/broken.log)" >&2
  real_failures=$((real_failures + 1))
else
  echo "browser test: the checks caught the $failures faults planted in a broken site"
fi
failures=$real_failures

echo "browser test: $pages_checked pages in $(($(date +%s) - started)) s; screenshots in $work/shots"
if ((failures > 0)); then
  echo "browser test: $failures failure(s); Chromium's messages: $work/chromium-<page>.log" >&2
  exit 1
fi
