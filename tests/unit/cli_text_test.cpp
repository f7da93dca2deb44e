// The CLI's texts that do not need the binary: one option's help line, laid out so that a
// long option never runs into its own text.
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "lab/base/exit_codes.h"
#include "lab/base/fs_util.h"
#include "lab/base/terminal_door.h"
#include "lab/base/wrap_text.h"
#include "lab/cli/args.h"
#include "lab/cli/help.h"
#include "lab/cli/verbs/verb.h"
#include "lab/run/progress.h"

using namespace vpnlab;

TEST(CliText, AnOptionLongerThanItsFieldHasItsTextOnTheNextLine) {
  EXPECT_EQ(help_line("--out DIR", "parent of the run directory"), "--out DIR        parent of the run directory\n");
  EXPECT_EQ(help_line("--threshold-cpu X", "exit 3 when"), "--threshold-cpu X\n                   exit 3 when\n");
  // Every option of every verb (shared and its own): its text starts at column 19, on its
  // line or the next.
  std::vector<OptionText> every;
  for (const auto& o : option_defs()) every.push_back(o.text());
  for (const Verb* v : verb_table()) every.insert(every.end(), v->own.texts.begin(), v->own.texts.end());
  for (const auto& o : every) {
    const std::string head = std::string(o.name) + (*o.value ? std::string(" ") + o.value : "");
    const std::string line = "  " + help_line(head, o.help);
    const size_t text =
        line.find(std::string(o.help).substr(0, 12));  // its start: a long text continues on wrapped lines
    ASSERT_NE(text, std::string::npos);
    const size_t line_start = line.rfind('\n', text) == std::string::npos ? 0 : line.rfind('\n', text) + 1;
    EXPECT_EQ(text - line_start, 19u) << o.name;
  }
}

TEST(CliText, WrappingKeepsWordsWholeAndCountsCharactersNotBytes) {
  EXPECT_EQ(wrap_line("  aaa bbb ccc", 4, 9), "  aaa bbb\n    ccc\n");
  EXPECT_EQ(wrap_line("x averyveryverylongword y", 2, 8), "x\n  averyveryverylongword\n  y\n")
      << "a word wider than the room stays whole";
  EXPECT_EQ(text_columns("±5 %"), 4u);
  EXPECT_EQ(wrap_line("±±±± ±±±±", 0, 9), "±±±± ±±±±\n") << "nine characters fit nine columns, whatever their bytes";
  EXPECT_EQ(wrap_lines("a b c\n  d e f\n", 1, 4), "a b\n c\n  d\n   e\n   f\n")
      << "each line continues at its own indent";
  EXPECT_EQ(wrap_line("--out DIR   parent of it", 12, 20), "--out DIR   parent\n            of it\n")
      << "a padded column stays aligned";
  EXPECT_EQ(wrap_lines("aa bb cc\ndd\n  ee\n", 0, 5), "aa bb\ncc dd\n  ee\n")
      << "a paragraph reflows; an indented line stays its own";
}

// Every text --help prints fits a 100-column terminal (the options' long texts once ran to
// 223 columns).
TEST(CliText, NoHelpLineIsWiderThanTheTerminal) {
  auto expect_fits = [](const std::string& what, const std::string& text) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) EXPECT_LE(text_columns(line), 100u) << what << ": " << line;
  };
  std::ostringstream usage;
  print_usage(usage);
  expect_fits("vpnlab --help", usage.str());
  for (const Verb* v : verb_table()) {
    std::ostringstream help;
    std::streambuf* saved = std::cout.rdbuf(help.rdbuf());
    print_verb_help(*v);
    std::cout.rdbuf(saved);
    expect_fits(std::string("vpnlab ") + v->name + " --help", help.str());
  }
}

// The exit codes are one table: the usage text and the man page are printed from it, and
// the README's table must be its Markdown, word for word.
TEST(ExitCodes, TheReadmesTableIsTheTable) {
  std::ifstream in(VPNLAB_SOURCE_ROOT "/README.md");
  ASSERT_TRUE(in.good());
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(readme.find(exit_codes_markdown()), std::string::npos) << "README.md should hold, under 'Exit codes':\n"
                                                                   << exit_codes_markdown();
  const std::string usage = exit_codes_usage_text();
  for (const auto& d : exit_code_docs())
    EXPECT_NE(usage.find("\n  " + std::to_string(d.code) + " "), std::string::npos) << usage;
}

// Taskfile.yml as go-task renders it (go-task cannot be installed here: its commands are
// read from the file): every command that runs vpnlab, a bench or ctest ends with what
// follows `--`, unless a comment on its line says why not.
TEST(Taskfile, EveryCommandTakesWhatFollowsDoubleDash) {
  std::ifstream in(VPNLAB_SOURCE_ROOT "/Taskfile.yml");
  ASSERT_TRUE(in.good());
  const std::regex task_line("^  ([a-z0-9:-]+):$");
  const std::regex command_line(
      R"re(^\s+(?:cmds: \[|- )"?((?:\./build/|ctest |bash bench/)[^"\]#]*?)"?\]?(\s+#.*)?$)re");
  std::map<std::string, std::vector<std::string>> commands;
  std::string line, task;
  std::smatch m;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (std::regex_match(line, m, task_line))
      task = m[1];
    else if (std::regex_match(line, m, command_line)) {
      commands[task].push_back(m[1]);
      if (m[1].str().find("{{.CLI_ARGS}}") == std::string::npos && !m[2].matched)
        ADD_FAILURE() << "Taskfile.yml:" << n << ": task '" << task << "' drops what follows --: " << m[1];
    }
  }
  EXPECT_GE(commands.size(), 20u);
  auto rendered = [&](const std::string& name, const std::string& args) {
    std::string cmd = commands[name].back();  // a task's last command takes them (test: products, then ctest)
    return std::regex_replace(cmd, std::regex(R"( \{\{\.CLI_ARGS\}\})"), args.empty() ? "" : " " + args);
  };
  EXPECT_EQ(rendered("quick", "--samples 3"), "./build/lab/vpnlab run topologies/quick.toml --samples 3");
  EXPECT_EQ(rendered("quick", ""), "./build/lab/vpnlab run topologies/quick.toml");
  EXPECT_EQ(rendered("test:impls", "--samples 3"),
            "./build/lab/vpnlab run topologies/quick.toml --product all --samples 3");
  EXPECT_EQ(rendered("test", "-R Cli"), "ctest --test-dir build -j2 --output-on-failure -R Cli");
}

// With stdout and stderr in one file, a log line written while the results sat in stdout's
// buffer landed inside one of their lines ("cheapest per Gbit: nebulahistory: ...").
TEST(ResultsAndLog, ALogLineNeverCutsALineOfTheResultsInOneFile) {
  char path[] = "/tmp/vpnlab-one-file-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    install_terminal_door();
    Progress::install_logger();
    for (int i = 0; i < 80; ++i)
      std::cout << "a results line of the table, " << i << ", long enough to fill a buffer\n";
    spdlog::info("history: a log line");
    std::cout << "the last results line\n";
    std::cout.flush();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  close(fd);
  const std::string text = read_file_text(path);
  unlink(path);
  const size_t at = text.find("history: a log line\n");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_TRUE(at > 0 && text[at - 1] == '\n') << "the log line starts a line of its own";
  EXPECT_NE(text.find(", 79, long enough to fill a buffer\nhistory: a log line\nthe last results line\n"),
            std::string::npos)
      << "the results written before the log line are all before it";
}
