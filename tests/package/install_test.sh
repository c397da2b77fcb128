#!/usr/bin/env bash
# Usage: install_test.sh PACKAGE_DIR SOURCE_DIR
#
# The three packages scripts/package built, unpacked into a throwaway root and used from there
# as a user would after `apt install ./*.deb`: what each holds and depends on, the versions the
# binaries print, the man pages, the shell completion, the demo on the installed fixtures, and
# the pytest plugin found through its entry point running python/README.md's example.
set -euo pipefail
package_dir=$(realpath "$1")
source_dir=$(realpath "$2")

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
root=$work/root

fail() {
  echo "install_test: $*" >&2
  exit 1
}
one_deb() {
  local found=("$package_dir"/$1)
  [[ ${#found[@]} -eq 1 && -f ${found[0]} ]] || fail "expected one $1 in $package_dir, found: ${found[*]}"
  echo "${found[0]}"
}
cli_deb=$(one_deb 'agentvcr_*.deb')
viewer_deb=$(one_deb 'agentvcr-viewer_*.deb')
python_deb=$(one_deb 'python3-pytest-agentvcr_*_all.deb')
field() { dpkg-deb --field "$1" "$2"; }

echo "== control fields"
version=$(field "$cli_deb" Version)
for deb in "$viewer_deb" "$python_deb"; do
  [[ $(field "$deb" Version) == "$version" ]] || fail "$deb is not version $version"
done
[[ $(field "$python_deb" Architecture) == all ]] || fail "the plugin's package is not Architecture: all"
grep -qF "agentvcr (= $version)" <<<"$(field "$viewer_deb" Depends)" || fail "agentvcr-viewer does not depend on agentvcr $version"
grep -qF "agentvcr (= $version)" <<<"$(field "$python_deb" Depends)" || fail "the plugin does not depend on agentvcr $version"
grep -q "python3-pytest" <<<"$(field "$python_deb" Depends)" || fail "the plugin does not depend on python3-pytest"
if grep -qi "qt" <<<"$(field "$cli_deb" Depends)"; then
  fail "agentvcr (the headless command line) depends on Qt: $(field "$cli_deb" Depends)"
fi

echo "== file lists"
for deb in "$cli_deb" "$viewer_deb" "$python_deb"; do
  outside=$(dpkg-deb --contents "$deb" | awk '{ print $6 }' | grep -v '^\./usr/' | grep -v '^\./$' || true)
  [[ -z $outside ]] || fail "$(basename "$deb") installs outside /usr: $outside"
  dpkg-deb --extract "$deb" "$root"
done
expect_in() {
  local deb=$1
  shift
  local listing path
  listing=$(dpkg-deb --contents "$deb" | awk '{ print $6 }')
  for path in "$@"; do
    grep -qx "\./usr/$path" <<<"$listing" || fail "$(basename "$deb") lacks /usr/$path"
  done
}
expect_in "$cli_deb" bin/agentvcr share/man/man1/agentvcr.1.gz \
  share/bash-completion/completions/agentvcr share/agentvcr/fixtures/demo/agent-script.json \
  share/doc/agentvcr/copyright share/doc/agentvcr/changelog.gz share/doc/agentvcr/README.md
expect_in "$viewer_deb" bin/agentvcr-viewer share/man/man1/agentvcr-viewer.1.gz \
  share/applications/agentvcr-viewer.desktop share/icons/hicolor/scalable/apps/agentvcr-viewer.svg \
  share/doc/agentvcr-viewer/copyright
expect_in "$python_deb" lib/python3/dist-packages/pytest_agentvcr/plugin.py \
  "lib/python3/dist-packages/pytest_agentvcr-$version.dist-info/entry_points.txt" \
  share/doc/python3-pytest-agentvcr/copyright
if dpkg-deb --contents "$cli_deb" | grep -q "agentvcr-viewer"; then
  fail "agentvcr holds viewer files"
fi
grep -q "Apache-2.0" "$root/usr/share/doc/agentvcr/copyright" || fail "copyright names no Apache-2.0"

echo "== Depends: every shared library the binaries need comes from a package they depend on"
for pair in "$cli_deb:usr/bin/agentvcr" "$viewer_deb:usr/bin/agentvcr-viewer"; do
  deb=${pair%%:*}
  binary=$root/${pair#*:}
  # The package names Depends lists, alternatives included, without versions.
  listed=$(field "$deb" Depends | tr ',|' '\n\n' | sed -e 's/([^)]*)//' -e 's/ //g')
  for library in $(objdump -p "$binary" | awk '$1 == "NEEDED" { print $2 }'); do
    path=$(ldconfig -p | awk -v lib="$library" '$1 == lib && /x86-64|AArch64/ && !found { print $NF; found = 1 }')
    [[ -n $path ]] || fail "$library (needed by $binary) is not installed here"
    owner=$({ dpkg -S "$path" || dpkg -S "$(realpath "$path")" || dpkg -S "/usr$path"; } 2>/dev/null |
      sed -n 1p | cut -d: -f1)
    [[ -n $owner ]] || fail "no package owns $path"
    grep -qxF "$owner" <<<"$listed" ||
      fail "$(basename "$deb") needs $library from $owner, which its Depends lacks: $(field "$deb" Depends)"
  done
done
apt-get install --simulate --quiet "$cli_deb" "$viewer_deb" "$python_deb" >"$work/apt.txt" 2>&1 ||
  fail "apt cannot satisfy the packages' Depends: $(cat "$work/apt.txt")"

echo "== versions"
export PATH=$root/usr/bin:$PATH
[[ $(command -v agentvcr) == "$root/usr/bin/agentvcr" ]] || fail "agentvcr on PATH is not the unpacked one"
[[ $(agentvcr --version) == "agentvcr $version" ]] || fail "agentvcr --version: $(agentvcr --version)"
viewer_version=$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM agentvcr-viewer --version)
[[ $viewer_version == "agentvcr-viewer $version" ]] || fail "agentvcr-viewer --version: $viewer_version"

echo "== man pages"
page=$(zcat "$root/usr/share/man/man1/agentvcr.1.gz")
for expected in '.TH AGENTVCR "1"' "agentvcr $version" '.SS "agentvcr record"' \
                '.SS "agentvcr mock a2a"' '\-\-miss\-log' '.SS "Exit status:"' \
                'usage or input error'; do
  grep -qF -- "$expected" <<<"$page" || fail "agentvcr(1) lacks $expected"
done
zcat "$root/usr/share/man/man1/agentvcr-viewer.1.gz" | grep -qF -- '\-\-waterfall' ||
  fail "agentvcr-viewer(1) lacks --waterfall"
if command -v groff >/dev/null; then
  zcat "$root/usr/share/man/man1/agentvcr.1.gz" | groff -man -Tutf8 -ww -z 2>"$work/groff.txt"
  [[ ! -s $work/groff.txt ]] || fail "agentvcr(1) does not render cleanly: $(cat "$work/groff.txt")"
fi

echo "== bash completion"
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _agentvcr
           printf "%s\n" "${COMPREPLY[@]}"' _ "$root/usr/share/bash-completion/completions/agentvcr" "$@"
}
[[ $(complete_words agentvcr re | sort | tr '\n' ' ') == "record reindex replay " ]] ||
  fail "completing 'agentvcr re': $(complete_words agentvcr re | tr '\n' ' ')"
complete_words agentvcr record --lis | grep -qx -- --listen || fail "completing 'agentvcr record --lis'"
complete_words agentvcr mock "" | grep -qx a2a || fail "completing 'agentvcr mock '"
complete_words agentvcr mock a2a --pro | grep -qx -- --profile || fail "completing 'agentvcr mock a2a --pro'"

echo "== the demo, on the installed fixtures"
cd "$work"
agentvcr demo --db demo.sqlite >demo.txt || fail "agentvcr demo: $(cat demo.txt)"

echo "== the pytest plugin through its entry point: python/README.md's example"
export PYTHONPATH=$root/usr/lib/python3/dist-packages
# Debian's interpreter: the package installs into its dist-packages, and pytest comes from
# python3-pytest, which the package depends on.
python=/usr/bin/python3
unset AGENTVCR
mkdir example
awk '/^## Example/ { example = 1 } example && /^```python$/ { code = 1; next }
     code && /^```$/ { exit } code { print }' "$source_dir/python/README.md" >example/test_example.py
grep -q "def test_" example/test_example.py || fail "no python example found in python/README.md"
cd example
agentvcr mock magma --script "$root/usr/share/agentvcr/fixtures/demo/agent-script.json" \
  --listen 127.0.0.1:0 --ready-file agent-url >/dev/null 2>&1 &
for _ in $(seq 300); do [[ -s agent-url ]] && break; sleep 0.1; done
[[ -s agent-url ]] || fail "the scripted agent did not start"
"$python" -m pytest -q -p no:cacheprovider --agentvcr-mode record \
  --agentvcr-upstream "$(cat agent-url)" >record.txt 2>&1 || fail "record run: $(cat record.txt)"
kill %1
[[ -s recordings/press.sqlite ]] || fail "the record run wrote no recordings/press.sqlite"
"$python" -m pytest -q -p no:cacheprovider >replay.txt 2>&1 || fail "replay run: $(cat replay.txt)"
grep -q "1 passed" replay.txt || fail "replay run: $(cat replay.txt)"
"$python" -c 'import pytest_agentvcr, sys; sys.exit(not pytest_agentvcr.__file__.startswith(sys.argv[1]))' \
  "$root" || fail "pytest_agentvcr was not imported from the unpacked package"
sed -i 's/Please press sw1/Please press sw2/' test_example.py
if "$python" -m pytest -q -p no:cacheprovider >miss.txt 2>&1; then
  fail "a changed input still passed in replay"
fi
grep -q "agentvcr replay had no recorded answer" miss.txt || fail "no near-miss report: $(cat miss.txt)"

echo "install_test: $(basename "$cli_deb"), $(basename "$viewer_deb"), $(basename "$python_deb"): all checks passed"
