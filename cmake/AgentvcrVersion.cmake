# AGENTVCR_VERSION: the one version string agentvcr carries. `agentvcr --version`,
# `agentvcr-viewer --version`, sessions.recorder_version, the Debian packages and the pytest
# plugin's installed metadata all read it from here.
#
# It is project(VERSION) as it stands for a source tree without git, or at the commit tagged
# v<PROJECT_VERSION>. Any other commit adds `+git<commits>.<short hash>`: a valid Debian and PEP 440
# version that grows with every commit, so a newer snapshot package upgrades an older one.
# CMake runs again when HEAD moves, so the string never lags the checkout it was built from.

set(AGENTVCR_VERSION ${PROJECT_VERSION})

find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  macro(agentvcr_git output)
    execute_process(COMMAND ${GIT_EXECUTABLE} ${ARGN}
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      OUTPUT_VARIABLE ${output} OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE agentvcr_git_result ERROR_QUIET)
  endmacro()
  agentvcr_git(agentvcr_head_log rev-parse --path-format=absolute --git-path logs/HEAD)
  if(EXISTS "${agentvcr_head_log}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${agentvcr_head_log}")
  endif()
  agentvcr_git(agentvcr_release_tag tag --points-at HEAD --list v${PROJECT_VERSION})
  if(agentvcr_release_tag STREQUAL "")
    agentvcr_git(agentvcr_commit_count rev-list --count HEAD)
    agentvcr_git(agentvcr_short_hash rev-parse --short=7 HEAD)
    if(agentvcr_git_result EQUAL 0)
      string(APPEND AGENTVCR_VERSION "+git${agentvcr_commit_count}.${agentvcr_short_hash}")
    endif()
  endif()
endif()
message(STATUS "agentvcr version ${AGENTVCR_VERSION}")
