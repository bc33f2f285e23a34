#!/usr/bin/env bash
# Builds libsrtp 2.5.0 — the version Debian's libsrtp2-dev ships — with AddressSanitizer and
# libFuzzer's coverage counters into .deps/libsrtp-asan (a static archive and its pkg-config file),
# from Debian's own source tarball, checked against its SHA-256. `make fuzz FUZZ_SANITIZE=address`
# links the fuzzer to it: Debian's prebuilt library is not instrumented, so ASan would otherwise
# check only our side of the calls, not libsrtp's C, and the fuzzer would not see its branches.
# Does nothing when the archive is already there, built with the same flags.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=$root/.deps/libsrtp-asan
# AddressSanitizer, and libFuzzer's coverage counters so that the fuzzer sees libsrtp's branches.
cflags="-O1 -g -fsanitize=address,fuzzer-no-link -fno-omit-frame-pointer"
[ -f "$prefix/lib/libsrtp2.a" ] && [ "$(cat "$prefix/cflags" 2>/dev/null)" = "$cflags" ] && exit 0
rm -rf "$prefix"
url=http://deb.debian.org/debian/pool/main/libs/libsrtp2/libsrtp2_2.5.0.orig.tar.gz
sha256=8a43ef8e9ae2b665292591af62aa1a4ae41e468b6d98d8258f91478735da4e09
# The toolchain's own clang, so that libsrtp and the Swift code share one ASan runtime.
clang=$(dirname "$(readlink -f "$(command -v swift)")")/clang
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "building libsrtp 2.5.0 with AddressSanitizer into $prefix…"
curl -fsSL -o "$work/libsrtp.tar.gz" "$url"
echo "$sha256  $work/libsrtp.tar.gz" | sha256sum --check --quiet
tar -xzf "$work/libsrtp.tar.gz" -C "$work"
cd "$work/libsrtp-2.5.0"
CC=$clang CFLAGS="$cflags" ./configure --prefix="$prefix" --disable-shared >"$work/build.log" 2>&1 \
  && make -j2 libsrtp2.a >>"$work/build.log" 2>&1 && make install >>"$work/build.log" 2>&1 \
  || { tail -30 "$work/build.log"; exit 1; }
echo "$cflags" >"$prefix/cflags"
