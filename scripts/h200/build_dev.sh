#!/usr/bin/env bash
# Build the Release binaries that device calls carry (build-dev), with the
# shared libraries the GPU machine lacks (libmicrohttpd, ...) copied to
# build-dev/rt and found through the binary's RPATH ($ORIGIN/rt), so that
# programs gpuwhy starts never see them.
set -eu
cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  '-DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath,$ORIGIN/rt -Wl,--disable-new-dtags' > /dev/null
cmake --build build-dev -j"$(nproc)"
rm -rf build-dev/rt && mkdir -p build-dev/rt
for lib in $(ldd build-dev/gpuwhy | awk '/=>/ {print $3}' | grep -v -E '/(libc|libm|ld-linux[^/]*)\.so'); do
  cp -L "$lib" build-dev/rt/
done
