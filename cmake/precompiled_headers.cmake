# Precompiled headers (the per-file build profile in README "Building" says why): the
# third-party headers that most translation units parse again and again, nlohmann::json
# above all (in 60 files, and in headers that more include), with the standard library's
# containers, strings and streams. One PCH per target of three or more sources, built with
# that target's own flags; a target of one or two files would pay for its PCH and gain
# nothing. -DVPNLAB_PCH=OFF builds without.
option(VPNLAB_PCH "precompile the heavy third-party headers per target" ON)

function(vpnlab_targets_below dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    vpnlab_targets_below(${sub} below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(vpnlab_precompile_headers)
  if(NOT VPNLAB_PCH)
    return()
  endif()
  vpnlab_targets_below(${PROJECT_SOURCE_DIR} targets)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(sources ${t} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.cpp$")
    list(LENGTH sources count)
    if(count LESS 3)
      continue()
    endif()
    target_precompile_headers(${t} PRIVATE
      <algorithm> <filesystem> <functional> <map> <memory> <optional> <set> <string> <vector>
      <nlohmann/json.hpp>)
  endforeach()
endfunction()
