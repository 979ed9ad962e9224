# Precompiled headers for the large third-party headers.
#
# Why: nlohmann/json, Eigen, Boost.Program_options and GoogleTest together take ~4 s of
# compiler time to parse in every translation unit that includes them (measured with the
# asan-ubsan flags on a 2-vCPU guest: 4.6 s for a file that includes them and nothing else,
# 0.8 s with them precompiled), and about 150 of the ~230 files do. Precompiling them once per
# target saves several minutes of a clean build on two cores, which is what CI runs.
#
# They are system headers, so precompiling them changes no warning; the project's own headers
# are never precompiled (an edit to one rebuilds only its includers). Configure with
# -DPOLLSCALE_PCH=OFF to build without them (e.g. to check that every file includes what it uses).
# The release preset does: with them, GCC 12 at -O3 inlines differently and warns falsely
# (-Wstringop-overflow inside libstdc++'s `"literal" + std::string`, the bug family of
# -Wno-restrict in CMakeLists.txt) in seven files; the release build is not CI's to wait for.
option(POLLSCALE_PCH "Precompile the large third-party headers once per target" ON)

set(POLLSCALE_PCH_JSON <nlohmann/json.hpp>)
set(POLLSCALE_PCH_EIGEN <Eigen/Dense>)
set(POLLSCALE_PCH_OPTIONS <boost/program_options.hpp>)
set(POLLSCALE_PCH_GTEST <gtest/gtest.h> <gmock/gmock.h>)

# pollscale_precompile(TARGET HEADER...): precompile HEADER... (angle-bracket names from the
# lists above, which TARGET must be able to include) for TARGET's own sources.
function(pollscale_precompile target)
  if(POLLSCALE_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
