#!/usr/bin/env bash
# Downloads the official Level Zero headers the bindings are generated from, and prints the
# directory that holds them (ze_api.h, ze_ddi.h, zet_*, zes_*, zer_*).
#
# They come from Debian's libze-dev 1.32.0-1 (the oneAPI Level Zero loader v1.32.0, whose
# headers are those of specification 1.17), pinned by checksum, and are cached under the
# workspace's target directory. Only the headers are used; nothing is installed.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
version="1.32.0-1"
sha256="46683fdb7a9c619941a5e665b424e8dca69d9870e4f49424a73ddc18653f1111"
url="http://deb.debian.org/debian/pool/main/l/level-zero/libze-dev_${version}_amd64.deb"
cache="${CARGO_TARGET_DIR:-$here/../../target}/level-zero-headers/$version"
include="$cache/usr/include/level_zero"
if [[ ! -f "$include/ze_api.h" ]]; then
    mkdir -p "$cache"
    deb="$cache/libze-dev.deb"
    curl -fsSL -o "$deb" "$url" || {
        echo "could not download $url (Debian may have replaced this version in its pool)" >&2
        exit 2
    }
    echo "$sha256  $deb" | sha256sum --check --quiet - >&2
    dpkg-deb -x "$deb" "$cache"
fi
echo "$include"
