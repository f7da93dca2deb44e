#include "lab/cli/verbs/verb.h"

#include <algorithm>

namespace vpnlab {

// Each defined in its own file of this folder.
extern const Verb kValidateVerb, kPlanVerb, kUpVerb, kExecVerb, kDownVerb, kRunVerb, kSuiteVerb, kScaleVerb,
    kCleanupVerb, kProductsVerb, kProductVerb, kHistoryVerb, kDiffVerb, kCompareVerb, kReportVerb, kImageVerb,
    kSchemaVerb, kDoctorVerb;

const std::vector<const Verb*>& verb_table() {
  static const std::vector<const Verb*> table = {
      &kValidateVerb, &kPlanVerb,    &kUpVerb,      &kExecVerb,     &kDownVerb,    &kRunVerb,
      &kSuiteVerb,    &kScaleVerb,   &kCleanupVerb, &kProductsVerb, &kProductVerb, &kHistoryVerb,
      &kDiffVerb,     &kCompareVerb, &kReportVerb,  &kImageVerb,    &kSchemaVerb,  &kDoctorVerb};
  return table;
}

const Verb* find_verb(const std::string& name) {
  for (const Verb* v : verb_table())
    if (name == v->name) return v;
  return nullptr;
}

std::optional<OptionText> verb_option(const Verb& v, const std::string& name) {
  if (std::find(v.options.begin(), v.options.end(), name) == v.options.end()) return std::nullopt;
  for (const auto& o : v.own.texts)
    if (name == o.name) return o;
  if (const OptionDef* o = option_def(name)) return o->text();
  return std::nullopt;
}

std::string run_dir_arg(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

SamplingRequest sampling_request_of(const Args& a, bool rerun) {
  return SamplingRequest{a.precision, a.max_time_s, a.min_rounds, a.samples.has_value() || rerun, a.force};
}

std::optional<int> sampling_usage(const Args& a, const std::string& verb) {
  if (!a.precision && (a.max_time_s || a.min_rounds))
    return usage_error(verb, std::string(a.max_time_s ? "--max-time" : "--min-rounds") +
                                 " belongs to adaptive sampling: add --precision P (e.g. 2%), or leave it out");
  return std::nullopt;
}

RunRequest request_of(const Args& a, const std::string& file) {
  return RunRequest{.topology_file = file,
                    .products = a.products,
                    .tests = a.tests,
                    .samples = a.samples,
                    .duration_s = a.duration_s,
                    .no_pin = a.no_pin,
                    .sequential = a.sequential,
                    .keys_dir = a.keys_dir,
                    .backend = a.backend};
}

std::optional<std::vector<std::string>> first_word_of(const std::vector<std::string>& positional,
                                                      std::vector<std::string> words) {
  if (!positional.empty()) return std::nullopt;
  return words;
}

}  // namespace vpnlab
