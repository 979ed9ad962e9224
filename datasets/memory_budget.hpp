// How much memory one pollscale run plans to take, checked before it allocates: a simulation's
// connections (app/sim_options.cpp), a dataset read in full (dataset.cpp). Refusing with the
// arithmetic beats being killed by the kernel halfway through.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace pollscale::datasets {

/// Half this machine's physical memory, bytes; UINT64_MAX when it cannot be read.
std::uint64_t memory_allowance();

/// "1.23 GiB".
std::string gib_text(std::uint64_t bytes);

/// The bytes a file holds once read: its size, or for a .gz file the size its gzip trailer
/// records (modulo 4 GiB, as gzip keeps it; a larger member reads as at least its
/// compressed size). A trailer more than deflate's largest ratio (1032:1) above the file's
/// size is no trailer — a file cut short ends inside its data — and reads as the file's size,
/// so that the reader reaches the damage and names it. 0 when the file cannot be read.
std::uint64_t content_bytes(const std::filesystem::path& path);

}  // namespace pollscale::datasets
