list(APPEND TCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/broadphase.c
  ${CMAKE_CURRENT_LIST_DIR}/narrowphase.c
  ${CMAKE_CURRENT_LIST_DIR}/collide_primitive.c
  ${CMAKE_CURRENT_LIST_DIR}/collide_box.c
  ${CMAKE_CURRENT_LIST_DIR}/collide_convex.c
  ${CMAKE_CURRENT_LIST_DIR}/manifold.c)
list(APPEND TCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/polyhedron.c ${CMAKE_CURRENT_LIST_DIR}/contact_plane.c)
list(APPEND TCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/features.c)
