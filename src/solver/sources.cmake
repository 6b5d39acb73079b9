# standalone.c: the public entry points of touche/lcp.h.
list(APPEND TCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/standalone.c)
list(APPEND TCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/lcp.c ${CMAKE_CURRENT_LIST_DIR}/lu.c
  ${CMAKE_CURRENT_LIST_DIR}/lemke.c ${CMAKE_CURRENT_LIST_DIR}/pgs.c
  ${CMAKE_CURRENT_LIST_DIR}/mlcp.c ${CMAKE_CURRENT_LIST_DIR}/dense_lapack.c
  ${CMAKE_CURRENT_LIST_DIR}/sparse_spd.c
  ${CMAKE_CURRENT_LIST_DIR}/block_cholesky.c)
