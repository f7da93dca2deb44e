# vpnlab's one version: the project version (CMakeLists.txt's project(): the release being
# made) with "~dev", the number of commits and the commit, "0.2.0~dev.266.g5d01324" (".dirty"
# when the checkout has uncommitted changes), or the project version alone outside a
# checkout. dpkg sorts these as the commits go (265 < 266 as numbers, where two hashes
# compared as text made half the upgrades look like downgrades) and every one of them below
# the release itself ("~" sorts before anything: 0.2.0~dev.266 < 0.2.0). A shallow clone
# knows only part of the history, so its count would be wrong: it says ".shallow" and counts
# 0, below every full build (CI fetches the whole history). The binary takes it at every
# build (cmake/version.cmake); the man page (from --version) and the .deb
# (cmake/cpack_version.cmake reads the binary's generated header) take the binary's.
# calls: git
function(vpnlab_version_of source_dir base out_var)
  set(version "${base}")
  execute_process(COMMAND git rev-parse --short=7 HEAD WORKING_DIRECTORY "${source_dir}"
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  execute_process(COMMAND git rev-list --count HEAD WORKING_DIRECTORY "${source_dir}"
                  OUTPUT_VARIABLE count OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE count_rc)
  execute_process(COMMAND git rev-parse --is-shallow-repository WORKING_DIRECTORY "${source_dir}"
                  OUTPUT_VARIABLE shallow OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND commit AND count_rc EQUAL 0 AND count MATCHES "^[0-9]+$")
    if(shallow STREQUAL "true")
      set(version "${base}~dev.0.shallow.g${commit}")
    else()
      set(version "${base}~dev.${count}.g${commit}")
    endif()
    execute_process(COMMAND git diff-index --quiet HEAD -- WORKING_DIRECTORY "${source_dir}" RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      set(version "${version}.dirty")
    endif()
  endif()
  set(${out_var} "${version}" PARENT_SCOPE)
endfunction()
