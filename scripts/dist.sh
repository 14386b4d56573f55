#!/usr/bin/env bash
# make dist: fetchd as a user gets it, with no Swift toolchain needed to run it.
#   scripts/dist.sh stage   the self-contained binary and the tree `make install` copies:
#                           dist/root/{bin,share/...}
#   scripts/dist.sh all     that, then dist/fetchd_<version>_<arch>.deb and the Python wheel
#                           dist/fetchd-<version>-*.whl (the binary inside)
# The binary links Swift's standard library statically and is stripped, with no RUNPATH, so
# it needs only libraries from Debian packages (libc, libstdc++, libsqlite3, libjansson, libpq).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
mode=${1:-all}
SWIFT=${SWIFT:-swift}
version=$(scripts/version.sh)
scratch=.build-dist
root=dist/root

echo "dist: building fetchd $version (release, static Swift stdlib, stripped)" >&2
"$SWIFT" build -c release --product fetchd --scratch-path "$scratch" \
    --static-swift-stdlib --disable-local-rpath -Xlinker -s >&2
bin="$scratch/release/fetchd"
# The man page comes from the command definitions, through swift-argument-parser's
# generate-manual tool (the tool its generate-manual plugin runs); a small debug build.
"$SWIFT" build --product generate-manual --scratch-path "$scratch" >&2
manual="$scratch/debug/generate-manual"

rm -rf "$root"
install -d "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" \
    "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d" "$root/share/doc/fetchd"
install -m 0755 "$bin" "$root/bin/fetchd"
"$manual" "$root/bin/fetchd" --output-directory "$root/share/man/man1" >&2
[ -s "$root/share/man/man1/fetchd.1" ] || { echo "dist: no man page generated" >&2; exit 1; }
# A blank line in the help text is a paragraph break; groff wants it said as one (.Pp).
sed -i 's/^$/.Pp/' "$root/share/man/man1/fetchd.1"
# bash-completion sources the file: it is no script, so it carries no #! line.
"$root/bin/fetchd" --generate-completion-script bash | sed '1{/^#!/d}' >"$root/share/bash-completion/completions/fetchd"
"$root/bin/fetchd" --generate-completion-script zsh >"$root/share/zsh/site-functions/_fetchd"
"$root/bin/fetchd" --generate-completion-script fish >"$root/share/fish/vendor_completions.d/fetchd.fish"
# The Neovim plugin as a start package: found by any Neovim whose packpath has share/nvim/site.
plugin="$root/share/nvim/site/pack/fetchd/start/fetchd"
install -d "$plugin"
for part in clients/nvim/*; do
    [ "$(basename "$part")" = test ] || cp -R "$part" "$plugin/"
done
# The help tags, so `:help fetchd` works where the package is installed (Neovim makes none
# for a package on its own).
if command -v nvim >/dev/null 2>&1; then
    nvim --headless -u NONE -i NONE -n -c "helptags $plugin/doc" -c "qa!" >&2
fi
"$root/bin/fetchd" describe >"$root/share/doc/fetchd/openrpc.json"
install -m 0644 protocol.md README.md CHANGELOG.md LICENSE "$root/share/doc/fetchd/"
chmod -R u=rwX,go=rX "$root"
echo "dist: $root ($(du -sh "$root" | cut -f1)); binary $(stat -c %s "$root/bin/fetchd") bytes" >&2

[ "$mode" = stage ] && exit 0
rm -f dist/fetchd_*.deb dist/fetchd-*.whl
scripts/build-deb.sh "$root" dist
scripts/build-wheel.sh "$root/bin/fetchd" dist
