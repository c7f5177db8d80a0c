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
# What a device call needs, in one compressed file: the whole build-dev no
# longer fits beside the tree in the 64 MiB a call carries (the runtime
# libraries alone are 9 MB). Carry build-dev/carry.tar.xz; scripts/h200/run.sh
# unpacks it on the device when build-dev/gpuwhy is not there.
tar -C build-dev -cJf build-dev/carry.tar.xz --transform 's,^,build-dev/,' \
  gpuwhy rt python tracer/libgpuwhy-tracer.so bench/nvml_cost locale
echo "build-dev/carry.tar.xz: $(du -h build-dev/carry.tar.xz | cut -f1)"
