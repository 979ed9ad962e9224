// A dataset's files committed as one unit (datasets/dataset_files.hpp, directory_swap.hpp):
// a kill or a fault at any step of a write leaves the previous dataset or the new one,
// entries the write does not own stay, and where the directory cannot be swapped the files
// are replaced one by one and a mixture is refused.
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "datasets/atomic_file.hpp"
#include "datasets/dataset.hpp"
#include "datasets/dataset_files.hpp"
#include "datasets/directory_swap.hpp"
#include "datasets/input_error.hpp"
#include "datasets/schema.hpp"

namespace pollscale::datasets {
namespace {

namespace fs = std::filesystem;

constexpr int killed_status = 77;  // a child's exit status standing for "killed at this step"

class DatasetCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pollscale_commit_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    clean();
  }
  void TearDown() override {
    set_write_fault_hook({});
    clean();
  }

  // The dataset and every hidden directory a write left beside it (".NAME.XXXXXX").
  void clean() {
    fs::remove_all(dir_);
    for (const auto& p : leftovers()) fs::remove_all(p);
  }
  std::vector<fs::path> leftovers() const {
    std::vector<fs::path> out;
    const std::string prefix = "." + dir_.filename().string() + ".";
    for (const auto& e : fs::directory_iterator(dir_.parent_path()))
      if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
    return out;
  }

  static dataset made_by(const std::string& host, double scale) {
    dataset d;
    d.context = {{"schema_version", schema_version}, {"host", host}};
    key k;
    k.scenario = "find_active";
    k.mechanism = "poll";
    k.fd_kind = "pipe";
    k.n_fds = 10;
    k.metric = "time_per_call";
    k.unit = "ns";
    for (int i = 0; i < 7; ++i) d.samples.push_back({k, i, scale * (100.0 + i), 1, 0, {}, {}, {}, {}});
    d.summaries = summarise_samples(d.samples);
    if (host == "next") d.sentinel = {{0.0, 1000, 36}};  // a file the old write did not have
    return d;
  }
  static dataset old_one() { return made_by("old", 1.0); }
  static dataset next_one() { return made_by("next", 2.0); }

  // Which write the directory holds, read as a user would: "old", "next", or the refusal.
  std::string holds() const {
    try {
      const dataset d = read_dataset(dir_);
      const std::string host = d.context.value("host", "");
      const double want = host == "next" ? 200.0 : 100.0;
      if (d.summaries.size() != 1 || d.samples.size() != 7 || d.samples.front().value != want)
        return "a mixture read as " + host;
      if ((host == "next") != !d.sentinel.empty()) return "a mixture of sentinel files read as " + host;
      return host;
    } catch (const input_error& e) {
      return std::string("refused: ") + e.what();
    }
  }

  fs::path dir_;
};

// The target of the hardening issue, tested as it states it: a kill injected before every
// step of a write (each file's create, write, flush and rename, the fresh directory, the
// swap, the removal of the old files) leaves the previous dataset or the new one, never a
// mix and never a refused directory. The child process ends itself at step k, as SIGKILL
// would, without unwinding.
TEST_F(DatasetCommitTest, AKillAtAnyStepLeavesThePreviousDatasetOrTheNewOne) {
  int steps = 0;
  int old_seen = 0, next_seen = 0;
  for (int k = 0;; ++k) {
    clean();
    write_dataset(dir_, old_one());
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int step = 0;
      set_write_fault_hook([&](std::string_view, const fs::path&) {
        if (step++ == k) ::_exit(killed_status);
        return 0;
      });
      try {
        write_dataset(dir_, next_one());
      } catch (...) {
        ::_exit(1);
      }
      ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_NE(WEXITSTATUS(status), 1) << "the write failed at step " << k;
    const std::string now = holds();
    SCOPED_TRACE("killed before step " + std::to_string(k));
    EXPECT_TRUE(now == "old" || now == "next") << now;
    old_seen += now == "old";
    next_seen += now == "next";
    if (WEXITSTATUS(status) == 0) break;  // the write finished before step k: every step was tried
    ++steps;
  }
  EXPECT_GE(steps, 16) << "each of four files takes create, write, flush, rename";
  EXPECT_GT(old_seen, 0);
  EXPECT_GT(next_seen, 1);  // killed while removing the old files, and not killed at all
}

// Faults (a full disk, an I/O error) at any step before the swap leave the previous dataset
// whole and nothing beside it; after the swap, the new dataset is whole and a failure to
// remove the old files only leaves their hidden directory.
TEST_F(DatasetCommitTest, AFaultBeforeTheSwapLeavesThePreviousDatasetWholeAndNothingBeside) {
  for (const char* step : {"stage", "create", "write", "flush", "rename", "exchange"}) {
    for (const int error : {ENOSPC, EIO}) {
      SCOPED_TRACE(std::string(step) + " " + std::to_string(error));
      clean();
      write_dataset(dir_, old_one());
      set_write_fault_hook([&](std::string_view s, const fs::path&) { return s == step ? error : 0; });
      try {
        write_dataset(dir_, next_one());
        ADD_FAILURE() << "the write succeeded";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), error) << e.what();
      }
      set_write_fault_hook({});
      EXPECT_EQ(holds(), "old");
      EXPECT_TRUE(leftovers().empty());
    }
  }
  clean();
  write_dataset(dir_, old_one());
  set_write_fault_hook([](std::string_view s, const fs::path&) { return s == "remove" ? EIO : 0; });
  write_dataset(dir_, next_one());
  set_write_fault_hook({});
  EXPECT_EQ(holds(), "next");
  ASSERT_EQ(leftovers().size(), 1u);
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

// Entries the write does not own stay, as the same inodes: calibrate's lock file keeps its
// lock across a checkpoint's write, a user's note survives. A dataset file of the earlier
// write that this one does not have (its sentinel) goes. The directory keeps its mode.
TEST_F(DatasetCommitTest, EntriesTheWriteDoesNotOwnStayAndTheirLocksHold) {
  write_dataset(dir_, next_one());
  ASSERT_TRUE(fs::exists(dir_ / "sentinel.csv"));
  ASSERT_EQ(::chmod(dir_.c_str(), 0750), 0);
  std::ofstream(dir_ / "notes.txt") << "measured after the BIOS update\n";
  const int lock_fd = ::open((dir_ / ".pollscale.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(lock_fd, 0);
  ASSERT_EQ(::flock(lock_fd, LOCK_EX | LOCK_NB), 0);
  struct stat before {};
  ASSERT_EQ(::fstat(lock_fd, &before), 0);
  EXPECT_EQ(commit_dataset_files(dir_, {{"samples.csv", samples_csv(old_one().samples)},
                                        {"summary.csv", summary_csv(old_one().summaries, {})},
                                        {"context.json", old_one().context.dump(2)}}),
            directory_swap::exchanged);
  EXPECT_EQ(holds(), "old");
  EXPECT_EQ(mode_of(dir_), 0750u);
  EXPECT_FALSE(fs::exists(dir_ / "sentinel.csv"));
  std::ifstream note(dir_ / "notes.txt");
  std::string line;
  std::getline(note, line);
  EXPECT_EQ(line, "measured after the BIOS update");
  struct stat after {};
  ASSERT_EQ(::stat((dir_ / ".pollscale.lock").c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  const int other = ::open((dir_ / ".pollscale.lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(other, 0);
  EXPECT_NE(::flock(other, LOCK_EX | LOCK_NB), 0) << "the lock was lost with the old directory";
  ::close(other);
  ::close(lock_fd);
  EXPECT_TRUE(leftovers().empty());
}

// A symlink to the dataset stays a symlink: the directory it names gets the new files.
// A directory that does not exist yet is created by the rename itself.
TEST_F(DatasetCommitTest, ASymlinkStaysAndAMissingDirectoryIsCreated) {
  const fs::path real = dir_.string() + "_real";
  fs::remove_all(real);
  write_dataset(real, old_one());
  fs::create_directory_symlink(real, dir_);
  write_dataset(dir_, next_one());
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_)));
  EXPECT_EQ(holds(), "next");
  fs::remove(dir_);
  fs::remove_all(real);
  EXPECT_EQ(commit_dataset_files(dir_ / "sub", {{"context.json", "{}"}}), directory_swap::created);
  EXPECT_TRUE(fs::exists(dir_ / "sub" / "files.json"));
  // Made as create_directories makes one (0777 under the umask), readable by the others.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(mode_of(dir_ / "sub"), 0777u & ~mask);
}

// Where the swap cannot be made (a filesystem without RENAME_EXCHANGE, here injected as
// EINVAL; a subdirectory among the entries) the files are replaced one by one, files.json
// last: a write that then fails midway leaves a dataset the reader refuses, naming the file.
TEST_F(DatasetCommitTest, WithoutTheSwapFilesAreReplacedOneByOneAndAMixtureIsRefused) {
  write_dataset(dir_, old_one());
  fs::create_directory(dir_ / "plots");
  EXPECT_EQ(commit_dataset_files(dir_, {{"context.json", next_one().context.dump(2)},
                                        {"samples.csv", samples_csv(next_one().samples)},
                                        {"sentinel.csv", sentinel_csv(next_one().sentinel)},
                                        {"summary.csv", summary_csv(next_one().summaries, {})}}),
            directory_swap::unavailable);
  EXPECT_EQ(holds(), "next");
  EXPECT_TRUE(fs::is_directory(dir_ / "plots"));
  fs::remove(dir_ / "plots");
  for (const auto& [failing, refused] : std::vector<std::pair<std::string, bool>>{
           {"context.json", false}, {"samples.csv", true}, {"summary.csv", true}, {"files.json", true}}) {
    SCOPED_TRACE(failing);
    clean();
    write_dataset(dir_, old_one());
    set_write_fault_hook([&](std::string_view s, const fs::path& p) {
      if (s == "exchange") return EINVAL;
      return s == "rename" && p.filename() == failing && p.parent_path() == dir_ ? ENOSPC : 0;
    });
    EXPECT_THROW(write_dataset(dir_, next_one()), std::system_error);
    set_write_fault_hook({});
    const std::string now = holds();
    if (refused)
      EXPECT_NE(now.find("refused: "), std::string::npos) << now;
    else
      EXPECT_EQ(now, "old");
    EXPECT_TRUE(leftovers().empty());
  }
}

}  // namespace
}  // namespace pollscale::datasets
