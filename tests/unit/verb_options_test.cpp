// Each verb's options: the shared ones (lab/cli/args.cpp's table) by name, and its own in
// its file, whose parsers set a struct of its own. These tests hold the rule that keeps
// `Args` from growing back into one struct of every option: an option only one verb takes
// is that verb's own.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lab/cli/args.h"
#include "lab/cli/help.h"
#include "lab/cli/verbs/verb.h"

using namespace vpnlab;

namespace {

// Shared options only one verb takes, each with why it stays shared.
const std::map<std::string, std::string> kSharedForOneVerb = {
    {"--keys", "run's, but a field of the RunRequest that run and plan share (request_of)"},
};

// What breaks the rule, one line per problem: an option a verb lists that resolves to
// nothing, an own option its list leaves out (no help, no completion), an own option named as
// a shared one (two parsers for one name), a shared option one verb alone takes.
std::vector<std::string> option_table_problems(const std::vector<const Verb*>& verbs) {
  std::vector<std::string> problems;
  std::map<std::string, std::set<std::string>> takers;
  for (const Verb* v : verbs) {
    for (const auto& name : v->options) {
      if (!verb_option(*v, name)) problems.push_back(std::string(v->name) + ": " + name + " is neither own nor shared");
      takers[name].insert(v->name);
    }
    for (const auto& o : v->own.texts) {
      if (std::find(v->options.begin(), v->options.end(), o.name) == v->options.end())
        problems.push_back(std::string(v->name) + ": its own " + o.name + " is not in its option list");
      if (option_def(o.name))
        problems.push_back(std::string(v->name) + ": its own " + o.name + " is a shared option's name too");
    }
  }
  for (const auto& o : option_defs())
    if (takers[o.name].size() < 2 && !kSharedForOneVerb.count(o.name))
      problems.push_back(std::string(o.name) + " is shared but taken by " +
                         (takers[o.name].empty() ? "no verb" : "'" + *takers[o.name].begin() + "' alone") +
                         ": make it that verb's own (or say in kSharedForOneVerb why not)");
  return problems;
}

struct Planted {
  bool flag = false;
};
const std::vector<Option<Planted>> kPlanted = {
    {"--planted", "", "a planted option", set_flag<&Planted::flag>},
};
const std::vector<Option<Planted>> kShadowing = {
    {"--json", "", "a second --json", set_flag<&Planted::flag>},
};

}  // namespace

TEST(VerbOptions, EveryOptionResolvesAndOneVerbsOptionIsItsOwn) {
  const auto problems = option_table_problems(verb_table());
  for (const auto& p : problems) ADD_FAILURE() << p;
  EXPECT_TRUE(problems.empty());
}

// The check above can fail: each planted violation is named.
TEST(VerbOptions, APlantedViolationIsNamed) {
  Verb unlisted = *find_verb("image");
  unlisted.own = own_options(kPlanted);  // own, but not in its option list
  auto all = verb_table();
  all.push_back(&unlisted);
  auto problems = option_table_problems(all);
  EXPECT_NE(std::find(problems.begin(), problems.end(), "image: its own --planted is not in its option list"),
            problems.end());
  Verb shadow = *find_verb("image");
  shadow.own = own_options(kShadowing);
  shadow.options.push_back("--json");
  problems = option_table_problems({&shadow});
  EXPECT_NE(std::find(problems.begin(), problems.end(), "image: its own --json is a shared option's name too"),
            problems.end());
  all = verb_table();
  Verb typo = *find_verb("image");
  typo.options.push_back("--no-such");
  all.push_back(&typo);
  problems = option_table_problems(all);
  EXPECT_NE(std::find(problems.begin(), problems.end(), "image: --no-such is neither own nor shared"), problems.end());
  // A verb that alone took --vs: run, plan and report take it, so drop two of them.
  std::vector<const Verb*> one_taker;
  for (const Verb* v : verb_table())
    if (std::string(v->name) != "plan" && std::string(v->name) != "report") one_taker.push_back(v);
  problems = option_table_problems(one_taker);
  EXPECT_NE(std::find(problems.begin(), problems.end(),
                      "--vs is shared but taken by 'run' alone: make it that verb's own (or say in "
                      "kSharedForOneVerb why not)"),
            problems.end());
}

// An own option is kept as given by the shared parser, then parsed by the verb's table: a
// refused value is a usage error before --help is answered, as a shared one's is.
TEST(VerbOptions, AVerbsOwnOptionsAreKeptAsGivenThenParsedByItsTable) {
  const Verb& history = *find_verb("history");
  auto a = parse_args("history", {"--metric", "tps", "--by=version", "--json"}, history.options, history.own.texts);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->own, (std::vector<std::pair<std::string, std::string>>{{"--metric", "tps"}, {"--by", "version"}}));
  EXPECT_TRUE(a->json);
  EXPECT_EQ(history.own.check(*a), "");
  a = parse_args("history", {"--by", "size"}, history.options, history.own.texts);
  ASSERT_TRUE(a);
  EXPECT_EQ(history.own.check(*a), "--by 'size' is not an axis: date or version");
  const Verb& scale = *find_verb("scale");
  a = parse_args("scale", {"--nodes", "5,2"}, scale.options, scale.own.texts);
  ASSERT_TRUE(a);
  EXPECT_EQ(scale.own.check(*a), "--nodes '5,2': give mesh sizes from 3 up, e.g. --nodes 5,25");
  // Another verb's own option is unknown here, as before.
  testing::internal::CaptureStderr();
  EXPECT_FALSE(parse_args("run", {"--nodes", "5"}, find_verb("run")->options, find_verb("run")->own.texts));
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "vpnlab: error: unknown option '--nodes' for 'run'\nhint: see 'vpnlab run --help'\n");
  testing::internal::CaptureStderr();
  EXPECT_FALSE(parse_args("scale", {"--nodes"}, scale.options, scale.own.texts));
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "vpnlab: error: --nodes needs a value\nhint: see 'vpnlab scale --help'\n");
}

// Completion offers an option's values from its table entry, shared or own: no option is
// special-cased by name in help.cpp.
TEST(VerbOptions, CompletionOffersTheValuesAnOptionsEntryLists) {
  auto complete = [](std::vector<std::string> words) {
    testing::internal::CaptureStdout();
    cmd_complete(words);
    return testing::internal::GetCapturedStdout();
  };
  EXPECT_EQ(complete({"3", "history", "--by", ""}), "date\nversion\n");
  EXPECT_EQ(complete({"3", "report", "--sort", "f"}), "fastest\nfile\n");
  EXPECT_EQ(complete({"3", "run", "--backend", ""}), "netns\nvm\nhosts\n");
  EXPECT_EQ(complete({"3", "history", "--metric", "ra"}), "ratio\n");
  EXPECT_EQ(complete({"3", "run", "--out", ""}), "_dirs\n");
  EXPECT_EQ(complete({"3", "run", "--duration", ""}), "") << "a value to type: nothing offered";
}
