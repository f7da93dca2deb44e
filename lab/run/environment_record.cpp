#include "lab/run/environment_record.h"

#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/base/json_depth.h"

namespace vpnlab {

Result<EnvironmentRecord> EnvironmentRecord::create(const std::string& run_dir, nlohmann::json described) {
  EnvironmentRecord record(run_dir + "/environment.json", std::move(described));
  if (auto s = record.write(); !s) return s.error();
  return record;
}

Result<EnvironmentRecord> EnvironmentRecord::reopen(const std::string& run_dir) {
  const std::string path = run_dir + "/environment.json";
  // A run directory's own files are never links: one there was put by someone else.
  auto text = read_optional_input_file(path, kMaxRunJsonBytes, /*follow_link=*/false);
  if (!text) return text.error();
  if (!*text)
    return make_error(path + ": missing: the first session's record is needed to resume",
                      "start a new run instead of --resume");
  std::string problem;
  nlohmann::json doc = parse_json_bounded(**text, &problem);
  if (doc.is_discarded() || !doc.is_object())
    return make_error(
        path + ": " + (problem.empty() ? std::string("not a JSON object") : problem) +
            ": the first session's record cannot be added to",
        "the run directory's record was changed by hand or cut short; start a new run instead of --resume");
  return EnvironmentRecord(path, std::move(doc));
}

Status EnvironmentRecord::set(const nlohmann::json& fields) {
  doc_.update(fields);
  return write();
}

Status EnvironmentRecord::set_entry(const std::string& key, const std::string& name, const nlohmann::json& value) {
  if (!doc_[key].is_object()) doc_[key] = nlohmann::json::object();
  doc_[key][name] = value;
  return write();
}

Status EnvironmentRecord::set_entry_once(const std::string& key, const std::string& name, const nlohmann::json& value,
                                         nlohmann::json* kept) {
  *kept = nullptr;
  if (doc_.contains(key) && doc_[key].is_object() && doc_[key].contains(name)) {
    *kept = doc_[key][name];
    return ok_status();
  }
  return set_entry(key, name, value);
}

Status EnvironmentRecord::write() const {
  // A product's version line that is not UTF-8 is kept with U+FFFD, not a throw mid-run.
  return replace_file(path_, doc_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                      0640);  // a rename: never torn
}

}  // namespace vpnlab
