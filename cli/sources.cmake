list(APPEND TCH_CLI_SOURCES ${CMAKE_CURRENT_LIST_DIR}/main.c ${CMAKE_CURRENT_LIST_DIR}/common.c
  ${CMAKE_CURRENT_LIST_DIR}/cmd_run.c ${CMAKE_CURRENT_LIST_DIR}/cmd_inspect.c
  ${CMAKE_CURRENT_LIST_DIR}/cmd_speed.c ${CMAKE_CURRENT_LIST_DIR}/vtk.c)
# touche mesh uses the internal tet mesh API (the public API has no tet mesh type).
list(APPEND TCH_CLI_SOURCES ${CMAKE_CURRENT_LIST_DIR}/cmd_mesh.c)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/cmd_mesh.c PROPERTIES
  INCLUDE_DIRECTORIES ${PROJECT_SOURCE_DIR}/src)
