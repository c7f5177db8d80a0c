# The recordings the tests read (tests/**/*.db) are stored compressed as
# *.db.xz: xz takes the 43 MB of SQLite files to about 6 MB, which keeps the
# tracked tree small enough to carry to a GPU machine. Each is unpacked here,
# at configure time, to the .db beside it when that .db is missing or older
# than the .xz; .gitignore hides the unpacked copies. CONFIGURE_DEPENDS makes
# the build configure again when a .db.xz is added, so a pulled fixture is
# unpacked by the next `cmake --build`.
file(GLOB_RECURSE GW_PACKED_FIXTURES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/*.db.xz)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${GW_PACKED_FIXTURES})
find_program(GW_XZ xz)
set(gw_fixtures_unpacked 0)
foreach(packed ${GW_PACKED_FIXTURES})
  string(REGEX REPLACE "\\.xz$" "" unpacked "${packed}")
  # IS_NEWER_THAN is also true for equal times: such a file is unpacked again, which is harmless
  if(EXISTS "${unpacked}" AND NOT "${packed}" IS_NEWER_THAN "${unpacked}")
    continue()
  endif()
  if(NOT GW_XZ)
    # the product builds without it; only the tests and the README's example read fixtures
    message(WARNING "xz not found (scripts/install-deps.sh installs xz-utils): the test recordings stay packed")
    break()
  endif()
  # into a file of its own first, then renamed: two build folders configuring at
  # once, or an interrupted run, never leave a half-written .db behind
  string(RANDOM LENGTH 8 suffix)
  set(partial "${unpacked}.part-${suffix}")
  execute_process(COMMAND ${GW_XZ} --decompress --stdout "${packed}" OUTPUT_FILE "${partial}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    file(REMOVE "${partial}")
    message(FATAL_ERROR "xz could not unpack ${packed} (status ${rc})")
  endif()
  file(RENAME "${partial}" "${unpacked}")
  math(EXPR gw_fixtures_unpacked "${gw_fixtures_unpacked} + 1")
endforeach()
if(gw_fixtures_unpacked GREATER 0)
  message(STATUS "Unpacked ${gw_fixtures_unpacked} test recordings (tests/**/*.db.xz)")
endif()
