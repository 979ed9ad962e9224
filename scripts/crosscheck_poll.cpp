// An independent measurement of poll(..., 0) over n pipes with one ready, written without
// any pollscale code, for scripts/crosscheck.sh. It times what pollscale's find_active
// time_per_call row times: one poll() with timeout 0 over n read ends of pipes, the one in
// the middle (index (n-1)/2) holding unread data, plus the caller's scan of revents up to
// the ready entry. Build: g++ -O2 -std=c++17 crosscheck_poll.cpp -o crosscheck_poll
//
// Usage: crosscheck_poll N [REPS=201] [MIN_BATCH_NS=20000]
// Prints one line: "n=N median_ns=M mean_ns=E min_ns=A max_ns=B reps=R calls_per_rep=C".
// A batch of calls lasts at least MIN_BATCH_NS (50x the clock's cost, and short enough
// that most batches are not interrupted by another task: the median of many short batches
// is the cost of the call itself, the mean also carries the machine's other load).
//
// The descriptor limit (RLIMIT_NOFILE) counts write ends too, so 10000 pipes would need
// 20000 descriptors; the write ends of idle pipes are therefore handed to a helper child
// over a unix socket (SCM_RIGHTS) and closed here. The child keeps them open (so the read
// ends never see end-of-file) until this process closes the socket.

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "crosscheck_poll: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

long long now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/// The helper child: receives descriptors, acknowledges each batch, keeps them until EOF.
[[noreturn]] void keeper(int sock) {
  for (;;) {
    char byte;
    alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(int) * 200)];
    iovec iov{&byte, 1};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = ctrl;
    msg.msg_controllen = sizeof ctrl;
    const ssize_t r = recvmsg(sock, &msg, 0);
    if (r <= 0) _exit(0);
    if (write(sock, "k", 1) != 1) _exit(1);
  }
}

void hand_over(int sock, const std::vector<int>& fds) {
  alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(int) * 200)];
  for (std::size_t at = 0; at < fds.size(); at += 200) {
    const std::size_t k = std::min<std::size_t>(200, fds.size() - at);
    char byte = 'f';
    iovec iov{&byte, 1};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = ctrl;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * k);
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * k);
    std::memcpy(CMSG_DATA(c), fds.data() + at, sizeof(int) * k);
    if (sendmsg(sock, &msg, 0) != 1) die("sendmsg");
    if (read(sock, &byte, 1) != 1) die("keeper did not acknowledge");
    for (std::size_t i = at; i < at + k; ++i) close(fds[i]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: crosscheck_poll N [REPS] [MIN_BATCH_NS]\n");
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 201;
  const long long min_batch_ns = argc > 3 ? std::atoll(argv[3]) : 20000;
  if (n < 1 || reps < 1 || min_batch_ns < 1) {
    std::fprintf(stderr, "crosscheck_poll: N, REPS and MIN_BATCH_NS must be positive\n");
    return 2;
  }
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);

  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) die("socketpair");
  const pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    close(sv[0]);
    keeper(sv[1]);
  }
  close(sv[1]);

  const int ready = (n - 1) / 2;
  std::vector<pollfd> pfds(static_cast<std::size_t>(n));
  std::vector<int> to_park;
  int ready_writer = -1;
  for (int i = 0; i < n; ++i) {
    int p[2];
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) die("pipe2");
    pfds[static_cast<std::size_t>(i)] = {p[0], POLLIN, 0};
    if (i == ready)
      ready_writer = p[1];
    else
      to_park.push_back(p[1]);
    if (to_park.size() >= 200) {
      hand_over(sv[0], to_park);
      to_park.clear();
    }
  }
  hand_over(sv[0], to_park);
  if (write(ready_writer, "x", 1) != 1) die("write");

  // Size a batch to last at least min_batch_ns, then time `reps` batches.
  auto one_call = [&]() {
    const int r = poll(pfds.data(), static_cast<nfds_t>(n), 0);
    if (r != 1) die("poll did not report exactly one ready descriptor");
    int found = -1;
    for (int i = 0; i < n; ++i)
      if (pfds[static_cast<std::size_t>(i)].revents) {
        found = i;
        break;
      }
    if (found != ready) die("poll reported the wrong descriptor");
  };
  long long calls = 1;
  for (;;) {
    const long long t0 = now_ns();
    for (long long c = 0; c < calls; ++c) one_call();
    if (now_ns() - t0 >= min_batch_ns) break;
    calls *= 2;
  }
  for (long long c = 0; c < calls; ++c) one_call();  // warm-up
  std::vector<double> per_call;
  for (int r = 0; r < reps; ++r) {
    const long long t0 = now_ns();
    for (long long c = 0; c < calls; ++c) one_call();
    per_call.push_back(static_cast<double>(now_ns() - t0) / static_cast<double>(calls));
  }
  double sum = 0;
  for (double v : per_call) sum += v;
  std::sort(per_call.begin(), per_call.end());
  const std::size_t m = per_call.size();
  const double median = m % 2 ? per_call[m / 2] : (per_call[m / 2 - 1] + per_call[m / 2]) / 2;
  std::printf("n=%d median_ns=%.1f mean_ns=%.1f min_ns=%.1f max_ns=%.1f reps=%d calls_per_rep=%lld\n", n, median,
              sum / static_cast<double>(m), per_call.front(), per_call.back(), reps, calls);
  close(sv[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return 0;
}
