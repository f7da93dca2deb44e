#include "lab/run/test_driver.h"

#include <mutex>

namespace vpnlab {

namespace {

struct Drivers {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<TestDriver>> by_kind;
  Drivers() {
    add(make_iperf_driver());
    for (auto& d : make_transaction_drivers()) add(std::move(d));
  }
  void add(std::unique_ptr<TestDriver> d) {
    const std::string kind = d->kind();
    by_kind[kind] = std::move(d);
  }
};

Drivers& drivers() {
  static Drivers d;
  return d;
}

}  // namespace

const TestDriver* find_test_driver(const std::string& kind) {
  Drivers& d = drivers();
  std::lock_guard<std::mutex> lock(d.mu);
  auto it = d.by_kind.find(kind);
  return it == d.by_kind.end() ? nullptr : it->second.get();
}

void add_test_driver(std::unique_ptr<TestDriver> driver, TestKindTraits traits) {
  traits.name = driver->kind();
  add_test_kind(std::move(traits));
  Drivers& d = drivers();
  std::lock_guard<std::mutex> lock(d.mu);
  d.add(std::move(driver));
}

std::string process_label(const std::string& label, size_t i, size_t count) {
  return count == 1 ? label : label + "-p" + std::to_string(i + 1);
}

}  // namespace vpnlab
