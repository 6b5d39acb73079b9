list(APPEND TCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/data.c ${CMAKE_CURRENT_LIST_DIR}/step.c
  ${CMAKE_CURRENT_LIST_DIR}/checkpoint.c)
list(APPEND TCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/constraint.c
  ${CMAKE_CURRENT_LIST_DIR}/constraint_pgs.c ${CMAKE_CURRENT_LIST_DIR}/constraint_islands.c
  ${CMAKE_CURRENT_LIST_DIR}/constraint_chain.c ${CMAKE_CURRENT_LIST_DIR}/constraint_position.c
  ${CMAKE_CURRENT_LIST_DIR}/constraint_tree.c)
list(APPEND TCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/constraint_model_solve.c
  ${CMAKE_CURRENT_LIST_DIR}/peg_query.c)
list(APPEND TCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/implicit.c
  ${CMAKE_CURRENT_LIST_DIR}/watch.c ${CMAKE_CURRENT_LIST_DIR}/integrator_adaptive.c)
list(APPEND TCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/derivatives.c)
