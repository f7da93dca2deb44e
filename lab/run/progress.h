// Progress of a run: on a terminal a live status line (round, product, test, sample,
// elapsed and remaining time, last Gbit/s) that log lines scroll above; elsewhere plain
// log lines. The live line is drawn by a spdlog sink, so every log message first clears
// it and then redraws it below itself.
#pragma once
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

namespace vpnlab {

class Progress {
 public:
  // Installs the default logger: stderr, with the live line when stderr is a terminal.
  static void install_logger();
  // The process-wide progress (a no-op unless install_logger() found a terminal).
  static Progress& get();

  bool live() const { return live_; }
  void start(int total_samples, double estimated_s);
  // The samples the run now expects in all (adaptive sampling learns it as it goes).
  void set_total(int total_samples);
  void sample_done(const std::string& where, const std::string& figure, bool ok);
  void finish();

  // For the sink: the current line, and writing it (the sink holds its own lock).
  std::string line() const;

 private:
  bool live_ = false;
  int total_ = 0, done_ = 0;
  double estimated_s_ = 0;
  std::string last_;
  std::chrono::steady_clock::time_point started_;
  mutable std::mutex mu_;
  friend class ProgressSink;
};

// "1m05s"
std::string format_seconds(double s);

}  // namespace vpnlab
