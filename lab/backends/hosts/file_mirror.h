// A host that does not see this machine's files (a real one, not one sharing its
// filesystem): before a process starts there, the run directory's inputs (nodes/ and
// secrets/: products' configs and keys, written here by the product's prepare steps) are
// copied to the same paths on the host, those new or changed since the last copy; once a
// process has ended, its output files (iperf3's JSON, a daemon's log) are copied back, so
// the runner reads them here as on one machine.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "lab/agent/agent_client.h"
#include "lab/base/result.h"

namespace vpnlab {

class FileMirror {
 public:
  FileMirror(AgentClient* agent, std::string run_dir, std::string host)
      : agent_(agent), run_dir_(std::move(run_dir)), host_(std::move(host)) {}
  Status push_inputs();
  // The host's file at `path` to the same path here; a file the process never wrote is
  // not an error ("" paths and /dev/null are skipped).
  Status fetch(const std::string& path);

 private:
  AgentClient* agent_;
  std::string run_dir_;
  std::string host_;
  std::map<std::string, std::pair<uintmax_t, int64_t>> pushed_;  // path -> size, mtime (ns)
};

// Whether the host sees `run_dir` as this machine does: a file with a random token is
// written here and read there.
Result<bool> host_shares_files(AgentClient& agent, const std::string& run_dir);

}  // namespace vpnlab
