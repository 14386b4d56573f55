#!/usr/bin/env bash
# scripts/build-deb.sh ROOT OUTDIR: the Debian package fetchd_<version>_<arch>.deb from the tree
# `scripts/dist.sh stage` made (ROOT = dist/root), installing the same files as `make install`
# under /usr, laid out as Debian policy asks (man page and changelogs gzipped, zsh's vendor
# completions folder, a machine-readable copyright). Depends comes from the binary's libraries
# (dpkg-shlibdeps). Prints the package's path.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "${1:?usage: build-deb.sh ROOT OUTDIR}" && pwd)
out=${2:?usage: build-deb.sh ROOT OUTDIR}
version=$("$repo/scripts/version.sh")
arch=$(dpkg --print-architecture)
for tool in dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || { echo "build-deb: $tool is missing (apt-get install dpkg-dev)" >&2; exit 1; }
done
# The release date of this version in CHANGELOG.md dates the Debian changelog, so the same
# sources give the same package.
released=$(sed -n "s/^## \[$version\] - \([0-9-]*\)$/\1/p" "$repo/CHANGELOG.md")
[ -n "$released" ] || { echo "build-deb: CHANGELOG.md has no '## [$version] - DATE' heading" >&2; exit 1; }
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(date -u -d "$released" +%s)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg="$work/fetchd_${version}_$arch"
usr="$pkg/usr"
doc="$usr/share/doc/fetchd"
install -d "$pkg/DEBIAN" "$usr/bin" "$usr/share/man/man1" "$usr/share/bash-completion/completions" \
    "$usr/share/zsh/vendor-completions" "$usr/share/fish/vendor_completions.d" "$usr/share/nvim/site/pack" "$doc"
install -m 0755 "$root/bin/fetchd" "$usr/bin/fetchd"
gzip -9n <"$root/share/man/man1/fetchd.1" >"$usr/share/man/man1/fetchd.1.gz"
install -m 0644 "$root/share/bash-completion/completions/fetchd" "$usr/share/bash-completion/completions/fetchd"
install -m 0644 "$root/share/zsh/site-functions/_fetchd" "$usr/share/zsh/vendor-completions/_fetchd"
install -m 0644 "$root/share/fish/vendor_completions.d/fetchd.fish" "$usr/share/fish/vendor_completions.d/fetchd.fish"
cp -R "$root/share/nvim/site/pack/fetchd" "$usr/share/nvim/site/pack/"
install -m 0644 "$root/share/doc/fetchd/protocol.md" "$root/share/doc/fetchd/openrpc.json" \
    "$root/share/doc/fetchd/README.md" "$doc/"
gzip -9n <"$root/share/doc/fetchd/CHANGELOG.md" >"$doc/NEWS.md.gz"

# A native package's changelog, in Debian's format; the project's history is NEWS.md.gz.
{
    echo "fetchd ($version) unstable; urgency=medium"
    echo
    echo "  * Release $version; see /usr/share/doc/fetchd/NEWS.md.gz."
    echo
    echo " -- fetchd developers <fetchd@users.noreply.github.com>  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$doc/changelog.gz"
{
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: fetchd"
    echo "Comment: The binary links the Swift standard library and runtime statically"
    echo " (Copyright Apple Inc. and the Swift project authors; Apache-2.0 with the Runtime"
    echo " Library Exception), and swift-argument-parser and swift-log (Copyright Apple Inc.;"
    echo " Apache-2.0, whose text is in /usr/share/common-licenses/Apache-2.0)."
    echo
    echo "Files: *"
    echo "Copyright: 2026 the fetchd developers"
    echo "License: Expat"
    sed -n '/^Permission is hereby granted/,$p' "$repo/LICENSE" | sed 's/^$/./; s/^/ /'
} >"$doc/copyright"
chmod -R u=rwX,go=rX "$pkg"

# Depends from the libraries the binary needs, as dpkg-shlibdeps reads them (it wants a
# debian/control to name the package).
install -d "$work/src/debian"
printf 'Source: fetchd\n\nPackage: fetchd\nArchitecture: any\n' >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O -e"$usr/bin/fetchd" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
cat >"$pkg/DEBIAN/control" <<CONTROL
Package: fetchd
Version: $version
Architecture: $arch
Maintainer: fetchd developers <fetchd@users.noreply.github.com>
Installed-Size: $(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
Depends: $depends
Suggests: neovim, python3
Section: database
Priority: optional
Description: NSFetchedResultsController as a JSON-RPC 2.0 backend
 fetchd is a process that an editor, a script or an app spawns and talks to
 with JSON-RPC 2.0 over stdin and stdout. It hosts a SQLite (or PostgreSQL)
 store described by a JSON model, managed-object contexts over it, and named
 fetched-results controllers that push the section and row changes a table
 view applies, including those caused by other processes' commits.
 .
 This package holds the fetchd binary, its man page, shell completions for
 bash, zsh and fish, a Neovim plugin, and the protocol's documentation.
CONTROL
(cd "$pkg" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$pkg/DEBIAN/md5sums"
chmod 0644 "$pkg/DEBIAN/control" "$pkg/DEBIAN/md5sums"
mkdir -p "$out"
deb="$out/fetchd_${version}_$arch.deb"
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
echo "$deb"
