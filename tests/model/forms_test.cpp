#include "model/forms.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/model/synthetic.hpp"

namespace pollscale::model {
namespace {

form_request request(const std::string& mechanism, bool n, bool k, const std::string& scenario = "find_active") {
  form_request r;
  r.cell.k = test::cell_key(mechanism, "time_per_call", "ns", scenario);
  r.n_varies = n;
  r.k_varies = k;
  r.words_vary = n;
  r.p_varies = n;
  return r;
}

// The same request on a machine whose cache geometry is known (L2 1 MiB, L3 32 MiB).
form_request with_caches(form_request r) {
  r.curve = make_latency_curve(caches_from_context(test::cache_context()), {});
  return r;
}

bool has(const std::vector<form>& forms, const std::string& name) {
  return std::any_of(forms.begin(), forms.end(), [&](const form& f) { return f.name() == name; });
}

TEST(FormsTest, PollAlwaysPaysPerFdAndMayPayPerReadyFd) {
  const auto f = candidate_forms(request("poll", true, true));
  EXPECT_TRUE(has(f, "fixed + per_fd"));
  EXPECT_TRUE(has(f, "fixed + per_fd + per_ready"));
  EXPECT_FALSE(has(f, "fixed"));                  // the kernel walks every fd: per_fd is core
  EXPECT_EQ(f.front().name(), "fixed + per_fd");  // simplest first
}

TEST(FormsTest, SelectAddsBitmapWordsAndBlockingAddsRegistration) {
  auto r = request("select", true, false);
  EXPECT_TRUE(has(candidate_forms(r), "fixed + per_fd + per_word"));
  r.cell.k.blocking = 1;
  EXPECT_TRUE(has(candidate_forms(r), "fixed + per_fd + per_word + per_registered"));
}

TEST(FormsTest, EpollIsFlatInNUnlessTheDataSayOtherwise) {
  const auto f = candidate_forms(request("epoll", true, true));
  EXPECT_TRUE(has(f, "fixed + per_ready"));
  EXPECT_TRUE(has(f, "fixed"));
  EXPECT_TRUE(has(f, "fixed + log_n + per_ready"));    // a rival, chosen only by the data
  EXPECT_FALSE(has(f, "fixed + per_fd + per_ready"));  // no scan to extrapolate
}

TEST(FormsTest, ATokenRingPaysForTheLapOfPipesItCycles) {
  auto r = with_caches(request("epoll", true, false, "token_ring"));
  r.cell.k.metric = "throughput";
  r.cell.k.unit = "1/s";
  const auto f = candidate_forms(r);
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f.front().terms.back().kind, basis_kind::cycle_set);
  EXPECT_DOUBLE_EQ(f.front().terms.back().latency_scale, 1e-9);  // the reciprocal is in seconds
}

TEST(FormsTest, EpollCtlHasATreeDepthTerm) {
  EXPECT_TRUE(has(candidate_forms(request("epoll", true, false, "interest_churn")), "fixed + log_n"));
}

TEST(FormsTest, EpollCtlModPaysForTheLapOfWatchedFdsItCycles) {
  auto r = with_caches(request("epoll", true, false, "interest_churn"));
  r.cell.k.fd_kind = "eventfd";
  r.cell.k.metric = "mod";
  const auto mod = candidate_forms(r);
  ASSERT_FALSE(mod.empty());
  for (const auto& f : mod) {  // every candidate, the tree depth's included
    EXPECT_EQ(f.terms.back().kind, basis_kind::cycle_set);
    ASSERT_EQ(f.priors.size(), 1u);
    EXPECT_DOUBLE_EQ(f.priors[0].prior.bytes_per_fd, 264);
    EXPECT_DOUBLE_EQ(f.priors[0].prior.loads_mean, 3);
  }
  EXPECT_TRUE(has(mod, "fixed + log_n + cycle_set"));
  r.cell.k.metric = "add";  // an ADD visits the tree's path, not a lap of the watched fds
  for (const auto& f : candidate_forms(r)) EXPECT_TRUE(f.priors.empty()) << f.name();
}

TEST(FormsTest, CacheGeometryAddsAWorkingSetTermWithAPrior) {
  const auto r = with_caches(request("poll", true, false));
  const auto f = candidate_forms(r);
  ASSERT_FALSE(f.empty());
  for (const auto& form : f) {
    ASSERT_TRUE(form.working_set);
    EXPECT_EQ(form.terms[*form.working_set].kind, basis_kind::working_set);
    ASSERT_EQ(form.priors.size(), 1u);
    EXPECT_GT(form.priors[0].prior.loads_sd, 0);
  }
  // Without geometry the growth of the per-fd cost is followed empirically instead.
  EXPECT_TRUE(has(candidate_forms(request("poll", true, false)), "fixed + n^1*log2(n)^1"));
}

TEST(FormsTest, UnknownScenariosGetTheExtraPFamily) {
  const auto f = candidate_forms(request("", true, false, "custom"));
  EXPECT_EQ(f.size(), 1u + 18 * 3 + 2);  // constant + 19 exponents x 3 log powers - (0,0)
  EXPECT_TRUE(has(f, "fixed + n^1.5"));
  EXPECT_TRUE(has(f, "fixed + n^2*log2(n)^1"));
  auto forced = request("poll", true, false);
  forced.fam = family::extra_p;
  EXPECT_TRUE(has(candidate_forms(forced), "fixed + n^0.25"));
}

TEST(FormsTest, ACoreTermWhoseRegressorIsConstantCannotBeFitted) {
  EXPECT_NE(unfittable_core(request("poll", false, true)), "");
  EXPECT_EQ(unfittable_core(request("poll", true, false)), "");
  EXPECT_EQ(unfittable_core(request("epoll", false, true)), "");  // flat in n anyway
  EXPECT_TRUE(has(candidate_forms(request("", false, false, "ipc")), "fixed"));
}

TEST(FormsTest, RatesAreRecognised) {
  EXPECT_TRUE(is_rate(test::cell_key("poll", "throughput", "1/s")));
  EXPECT_FALSE(is_rate(test::cell_key("poll")));
}

}  // namespace
}  // namespace pollscale::model
