#!/usr/bin/env bash
# Builds dist/multitouchd_VERSION_ARCH.deb from this checkout: `make deb`.
#
# The release build (static Swift runtime, so the package needs no Swift), the man pages and
# completions (make man completions), then `make install PREFIX=/usr` into a staging root, the
# package's metadata, and dpkg-deb. Dependencies come from dpkg-shlibdeps on the two binaries.
#   BUILD_DIR=...   use an existing release build (its binaries must not need libswiftCore.so)
#   OUT=dir         where the .deb goes (default dist/)
#   DEB_COMPRESSION=gzip   faster than the default xz (packaging/deb/check.sh measures the size budget
#                          as xz would compress either way)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
start=$SECONDS
out=${OUT:-$root/dist}
if [ -z "${BUILD_DIR:-}" ]; then
  make -s build
  BUILD_DIR=$(swift build -c release --show-bin-path)
fi
for bin in multitouchd multitouchctl; do
  if ldd "$BUILD_DIR/$bin" | grep -q libswiftCore; then
    echo "make deb: $BUILD_DIR/$bin links the Swift runtime dynamically; build it with 'make build' (--static-swift-stdlib)" >&2
    exit 1
  fi
done
make -s man completions BUILD_DIR="$BUILD_DIR"

version=$(make -s -f - <<< 'include Makefile
print-version: ; @echo $(VERSION)' print-version)
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/multitouchd
make -s install PREFIX=/usr DESTDIR="$stage" BUILD_DIR="$BUILD_DIR" \
  UNITDIR=/usr/lib/systemd/system SYSUSERSDIR=/usr/lib/sysusers.d PYTHONDIR=/usr/lib/python3/dist-packages \
  PKGCONFIGDIR=/usr/share/pkgconfig > "$work/install.log"

# Debian's places: compressed man pages, a copyright file, stripped binaries.
gzip -9n "$stage"/usr/share/man/man1/*.1
install -m 0644 packaging/deb/copyright "$stage/usr/share/doc/multitouchd/copyright"
# multitouchd is a link to multitouchctl (one binary, both commands): strip the file, keep the link.
[ -L "$stage/usr/bin/multitouchd" ] || { echo "make deb: /usr/bin/multitouchd is not a link to multitouchctl" >&2; exit 1; }
strip --strip-unneeded --remove-section=.comment "$stage/usr/bin/multitouchctl"

# Dependencies of the binaries, as Debian names them (dpkg-shlibdeps wants a debian/control).
mkdir -p "$work/deps/debian"
printf 'Source: multitouchd\n\nPackage: multitouchd\nArchitecture: any\n' > "$work/deps/debian/control"
depends=$(cd "$work/deps" && dpkg-shlibdeps -O "$stage/usr/bin/multitouchctl" 2>/dev/null \
  | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "make deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# Packed relative relocations (DT_RELR, Makefile SWIFT_BUILD_FLAGS) need glibc 2.36, which the binary
# names as the version GLIBC_ABI_DT_RELR; dpkg-shlibdeps does not know that version's libc6.
if readelf -V "$stage/usr/bin/multitouchctl" | grep -q GLIBC_ABI_DT_RELR; then
  depends=$(echo "$depends" | sed -E 's/libc6 \(>= 2\.3[0-5][^)]*\)|libc6 \(>= 2\.[12][0-9][^)]*\)/libc6 (>= 2.36)/')
  echo "$depends" | grep -q 'libc6 (>= 2.36)' || depends="libc6 (>= 2.36), $depends"
fi

mkdir -p "$stage/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@SIZE@|$size|" -e "s|@DEPENDS@|$depends|" \
  packaging/deb/control.in > "$stage/DEBIAN/control"
install -m 0755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm "$stage/DEBIAN/"
(cd "$stage" && find etc -type f | sed 's|^|/|') > "$stage/DEBIAN/conffiles"
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"

mkdir -p "$out"
deb=$out/multitouchd_${version}_${arch}.deb
dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" --build "$stage" "$deb" > /dev/null
echo "make deb: $deb ($(du -h "$deb" | cut -f1), installed $((size / 1024)) MiB, $((SECONDS - start)) s)"
echo "  Depends: $depends"
