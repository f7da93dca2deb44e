# vpnlab's one version: the project version (CMakeLists.txt's project()) with the number of
# commits and the commit as build metadata, "0.2.0+266.g5d01324" (".dirty" when the checkout
# has uncommitted changes), or the project version alone outside a checkout. The count comes
# first so that versions sort as the commits do: dpkg compares 265 < 266 as numbers, where
# two hashes compared as text made half the upgrades look like downgrades. The binary takes it at every build
# (cmake/version.cmake); the man page (from --version) and the .deb (cmake/cpack_version.cmake
# reads the binary's generated header) take the binary's.
# calls: git
function(vpnlab_version_of source_dir base out_var)
  set(version "${base}")
  execute_process(COMMAND git rev-parse --short=7 HEAD WORKING_DIRECTORY "${source_dir}"
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  execute_process(COMMAND git rev-list --count HEAD WORKING_DIRECTORY "${source_dir}"
                  OUTPUT_VARIABLE count OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE count_rc)
  if(rc EQUAL 0 AND commit AND count_rc EQUAL 0 AND count MATCHES "^[0-9]+$")
    set(version "${base}+${count}.g${commit}")
    execute_process(COMMAND git diff-index --quiet HEAD -- WORKING_DIRECTORY "${source_dir}" RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      set(version "${version}.dirty")
    endif()
  endif()
  set(${out_var} "${version}" PARENT_SCOPE)
endfunction()
