#include "lab/run/progress.h"

#include <algorithm>

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include <iostream>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "lab/base/terminal_door.h"

namespace vpnlab {

std::string format_seconds(double s) {
  int t = static_cast<int>(s + 0.5);
  std::string buf;
  if (t >= 60)
    buf = fmt::format("{}m{:02}s", t / 60, t % 60);
  else
    buf = fmt::format("{}s", t);
  return buf;
}

// A log line as the terminal door lets it through (lab/base/terminal_door.h): a message
// carries names, versions and reasons from outside, and spdlog escapes nothing itself.
std::string door_text(spdlog::formatter& formatter, const spdlog::details::log_msg& msg) {
  spdlog::memory_buf_t formatted;
  formatter.format(msg, formatted);
  return through_terminal_door(std::string_view(formatted.data(), formatted.size()));
}

// What the results (stdout) have so far goes out before a log line (stderr): with both
// in one file, a buffered table was cut at 4 KiB by "history: ... has this run now".
void results_out_first() {
  std::cout.flush();
  fflush(stdout);
}

// Without a terminal: each line to stderr, through the door.
class EscapedStderrSink : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    results_out_first();
    const std::string text = door_text(*formatter_, msg);
    fwrite(text.data(), 1, text.size(), stderr);
  }
  void flush_() override { fflush(stderr); }
};

// Log lines go above the live line: clear it, write the message, draw it again.
class ProgressSink : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    results_out_first();
    std::string text = door_text(*formatter_, msg);
    std::string status = through_terminal_door(Progress::get().line());
    std::string out = "\r\033[K" + text + status;
    fwrite(out.data(), 1, out.size(), stderr);
    fflush(stderr);
  }
  void flush_() override { fflush(stderr); }
};

void Progress::install_logger() {
  Progress& p = get();
  p.live_ = isatty(STDERR_FILENO) != 0;
  std::shared_ptr<spdlog::logger> logger;
  if (p.live_)
    logger = std::make_shared<spdlog::logger>("vpnlab", std::make_shared<ProgressSink>());
  else
    logger = std::make_shared<spdlog::logger>("vpnlab", std::make_shared<EscapedStderrSink>());
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%v");
}

Progress& Progress::get() {
  static Progress p;
  return p;
}

void Progress::start(int total_samples, double estimated_s) {
  std::lock_guard<std::mutex> l(mu_);
  total_ = total_samples;
  done_ = 0;
  estimated_s_ = estimated_s;
  started_ = std::chrono::steady_clock::now();
  last_.clear();
}

void Progress::set_total(int total_samples) {
  std::lock_guard<std::mutex> l(mu_);
  if (total_ > 0) total_ = std::max(total_samples, done_);
}

void Progress::sample_done(const std::string& where, const std::string& figure, bool ok) {
  {
    std::lock_guard<std::mutex> l(mu_);
    ++done_;
    last_ = where + ": " + (ok ? figure : "failed");
  }
  if (!live_) return;
  std::string out = "\r\033[K" + through_terminal_door(line());
  fwrite(out.data(), 1, out.size(), stderr);
  fflush(stderr);
}

void Progress::finish() {
  if (!live_) return;
  {
    std::lock_guard<std::mutex> l(mu_);
    total_ = 0;
  }
  fputs("\r\033[K", stderr);
  fflush(stderr);
}

std::string Progress::line() const {
  std::lock_guard<std::mutex> l(mu_);
  if (!live_ || total_ == 0) return "";
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  // Remaining: the plan's estimate until samples tell the real pace.
  double remaining = done_ > 0 ? elapsed / done_ * (total_ - done_) : estimated_s_;
  return "[" + std::to_string(done_) + "/" + std::to_string(total_) + " samples, " + format_seconds(elapsed) +
         " elapsed, ~" + format_seconds(remaining) + " left] " + last_;
}

}  // namespace vpnlab
