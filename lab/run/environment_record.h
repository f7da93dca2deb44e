// RUN_DIR/environment.json with one writer. A run describes itself before its first sample
// (describe_environment) and learns more as it goes: the backend's records, what impaired
// links achieved, each product's interface offloads, where the time went, why sampling
// stopped. Five places used to read the file back, change a field and write it again: a
// record used as an accumulator, where a field one place wrote could be lost to another
// place's stale copy, and where a tampered file was re-parsed mid-run. Now the run holds the
// document in memory; each setter changes it there and writes it whole, atomically (a
// rename), so a run killed at any point leaves the last complete record, never a torn one.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "lab/base/result.h"

namespace vpnlab {

class EnvironmentRecord {
 public:
  // A new run's record, written at once.
  static Result<EnvironmentRecord> create(const std::string& run_dir, nlohmann::json described);
  // A resumed run's: the first session's record, read once (under kMaxRunJsonBytes, depth
  // bounded); later setters add to it. The resumed session's own provenance goes beside it
  // (environment-resume-N.json), not through this.
  static Result<EnvironmentRecord> reopen(const std::string& run_dir);

  // Top-level fields (what is learnt during a run).
  Status set(const nlohmann::json& fields);
  // key[name]: one product's or link's entry of a per-name record.
  Status set_entry(const std::string& key, const std::string& name, const nlohmann::json& value);
  // As set_entry, unless key[name] is there already (a resumed run: the first session's
  // entry stays, it is what the first rows were measured with); *kept gets that entry, or
  // null when there was none.
  Status set_entry_once(const std::string& key, const std::string& name, const nlohmann::json& value,
                        nlohmann::json* kept);

  const nlohmann::json& document() const { return doc_; }
  const std::string& path() const { return path_; }

 private:
  EnvironmentRecord(std::string path, nlohmann::json doc) : path_(std::move(path)), doc_(std::move(doc)) {}
  Status write() const;  // the one place the file is written

  std::string path_;
  nlohmann::json doc_;
};

}  // namespace vpnlab
