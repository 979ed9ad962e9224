# Precompiled headers for the large third-party headers.
#
# Why: nlohmann/json, Eigen, Boost.Program_options and GoogleTest together take ~4 s of
# compiler time to parse in every translation unit that includes them (measured with the
# asan-ubsan flags on a 2-vCPU guest: 4.6 s for a file that includes them and nothing else,
# 0.8 s with them precompiled), and about 150 of the ~230 files do. Precompiling them once (per
# set, below) saves several minutes of a clean build on two cores, which is what CI runs.
#
# They are system headers, so precompiling them changes no warning; the project's own headers
# are never precompiled (an edit to one rebuilds only its includers). Configure with
# -DPOLLSCALE_PCH=OFF to build without them (e.g. to check that every file includes what it uses).
# The release preset does: with them, GCC 12 at -O3 inlines differently and warns falsely
# (-Wstringop-overflow inside libstdc++'s `"literal" + std::string`, the bug family of
# -Wno-restrict in CMakeLists.txt) in seven files; the release build is not CI's to wait for.
option(POLLSCALE_PCH "Precompile the large third-party headers (once per set of them)" ON)

set(POLLSCALE_PCH_JSON <nlohmann/json.hpp>)
set(POLLSCALE_PCH_EIGEN <Eigen/Dense>)
set(POLLSCALE_PCH_OPTIONS <boost/program_options.hpp>)
set(POLLSCALE_PCH_GTEST <gtest/gtest.h> <gmock/gmock.h>)

# One precompiled header per set of headers, not per target: the first target that asks for a
# set builds it, every later target asking for the same set reuses that file (REUSE_FROM).
# Why: under the asan-ubsan flags each one is 100-200 MB and 20-40 s of a CPU, and ten targets
# asked for four distinct sets — a clean CI build wrote 0.95 GB of them and spent minutes
# compiling the same headers again. Every target compiles with the same flags (the presets set
# them for the whole tree); the few -D definitions some targets add (source and binary paths)
# appear in no precompiled header, which GCC's validity rule allows.

# A precompiled header is used only by a target whose command-line macros agree with the ones it
# was built with (GCC and Clang both check). Boost's imported targets define BOOST_ALL_NO_LIB
# (MSVC's auto-linking off; nothing on Linux) in the targets that link them and not in the
# others, so define it everywhere; the paths the tests add (POLLSCALE_SOURCE_DIR, the same in
# each) and the binary path two of them add appear in no precompiled header.
if(POLLSCALE_PCH)
  add_compile_definitions(BOOST_ALL_NO_LIB)
endif()

# pollscale_precompile(TARGET HEADER...): precompile HEADER... (angle-bracket names from the
# lists above, which TARGET must be able to include) for TARGET's own sources, or reuse the
# file an earlier target built for the same HEADER... .
function(pollscale_precompile target)
  if(NOT POLLSCALE_PCH)
    return()
  endif()
  string(MD5 set_key "${ARGN}")
  get_property(owner GLOBAL PROPERTY POLLSCALE_PCH_OWNER_${set_key})
  if(owner)
    target_precompile_headers(${target} REUSE_FROM ${owner})
  else()
    set_property(GLOBAL PROPERTY POLLSCALE_PCH_OWNER_${set_key} ${target})
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
