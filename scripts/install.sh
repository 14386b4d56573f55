#!/usr/bin/env bash
# make install / make uninstall. `install` copies the tree `scripts/dist.sh stage` made
# (dist/root) into $DESTDIR$PREFIX; `uninstall` removes exactly what install puts there, and
# then the folders that leaves empty (never $PREFIX itself).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
action=${1:?usage: install.sh install|uninstall}
prefix=${PREFIX:-/usr/local}
case "$prefix" in /*) ;; *) echo "install: PREFIX must be an absolute path, not '$prefix'" >&2; exit 2 ;; esac
target="${DESTDIR:-}$prefix"
root="$repo/dist/root"
# What install owns: these files, and everything below these folders.
files=(bin/fetchd share/man/man1/fetchd.1 share/bash-completion/completions/fetchd
    share/zsh/site-functions/_fetchd share/fish/vendor_completions.d/fetchd.fish)
folders=(share/doc/fetchd share/nvim/site/pack/fetchd)

case "$action" in
install)
    [ -x "$root/bin/fetchd" ] || { echo "install: no $root (run scripts/dist.sh stage)" >&2; exit 1; }
    for f in "${files[@]}"; do
        mode=0644
        [ "$f" = bin/fetchd ] && mode=0755
        install -D -m "$mode" "$root/$f" "$target/$f"
    done
    for d in "${folders[@]}"; do
        rm -rf "${target:?}/$d"
        install -d "$(dirname "$target/$d")"
        cp -R "$root/$d" "$target/$d"
        chmod -R u=rwX,go=rX "$target/$d"
    done
    echo "installed fetchd $("$target/bin/fetchd" --version) in $target" >&2
    ;;
uninstall)
    for f in "${files[@]}"; do rm -f "$target/$f"; done
    for d in "${folders[@]}"; do rm -rf "${target:?}/$d"; done
    for p in "${files[@]}" "${folders[@]}"; do
        dir=$(dirname "$target/$p")
        while [ "$dir" != "$target" ] && [ "${#dir}" -gt "${#target}" ] && rmdir "$dir" 2>/dev/null; do
            dir=$(dirname "$dir")
        done
    done
    echo "removed fetchd from $target" >&2
    ;;
*) echo "usage: install.sh install|uninstall" >&2; exit 2 ;;
esac
