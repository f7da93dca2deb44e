// The replay driver (systemd's fuzz-main shape): feeds every file of the directories it is
// given to the target's LLVMFuzzerTestOneInput, without libFuzzer, so each seed and each
// crash ever found runs as a plain test in the unit tier forever, under any compiler.
#include <dirent.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "lab/base/input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR...\n", argv[0]);
    return 2;
  }
  size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::string> names;
    if (DIR* d = opendir(argv[i])) {
      while (const dirent* e = readdir(d))
        if (e->d_name[0] != '.') names.push_back(e->d_name);
      closedir(d);
    } else {
      std::fprintf(stderr, "replay: cannot read %s\n", argv[i]);
      return 2;
    }
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      const std::string path = std::string(argv[i]) + "/" + name;
      auto text = vpnlab::read_input_file(path, 1 << 20);
      if (!text) {
        std::fprintf(stderr, "replay: %s\n", text.error().message.c_str());
        return 2;
      }
      std::fprintf(stderr, "replay: %s\n", path.c_str());
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(text->data()), text->size());
      ++inputs;
    }
  }
  std::printf("replay: %zu inputs, no property failed\n", inputs);
  return inputs > 0 ? 0 : 1;
}
