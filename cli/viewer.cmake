# The web viewer of `touche view` and `touche run --live` (docs/viewer.md).
#
# The viewer (viewer/src) is bundled by esbuild into one IIFE script from the npm packages that
# viewer/package-lock.json pins, installed with `npm ci` into the build directory (never into
# the source tree), its cache in TCH_NPM_CACHE so that later installs run offline. The script
# is assembled into the touche binary (cli/viewer_bundle.c), so that `touche view` needs no file
# beside it. Without node and npm the viewer is not built and `touche view` says so. The live
# mode serves the page with civetweb (Debian's libcivetweb-dev); without it `--live` says so.
set(TCH_NPM_CACHE ${CMAKE_BINARY_DIR}/npm-cache CACHE PATH "npm's cache for the viewer's packages")
find_program(TCH_NODE node)
find_program(TCH_NPM npm)
set(TCH_VIEWER_DIR ${CMAKE_CURRENT_BINARY_DIR}/viewer CACHE INTERNAL "the viewer's npm packages and bundle")
set(TCH_VIEWER_BUILT OFF CACHE INTERNAL "")
if(TCH_NODE AND TCH_NPM)
  set(TCH_VIEWER_BUILT ON CACHE INTERNAL "")
  set(viewer_source ${PROJECT_SOURCE_DIR}/viewer)
  set(viewer_installed ${TCH_VIEWER_DIR}/node_modules/.package-lock.json)
  file(MAKE_DIRECTORY ${TCH_VIEWER_DIR})
  add_custom_command(OUTPUT ${viewer_installed}
    COMMAND ${CMAKE_COMMAND} -E copy ${viewer_source}/package.json
            ${viewer_source}/package-lock.json ${TCH_VIEWER_DIR}
    COMMAND ${TCH_NPM} ci --prefer-offline --no-audit --no-fund --loglevel=error
            --cache ${TCH_NPM_CACHE}
    WORKING_DIRECTORY ${TCH_VIEWER_DIR}
    DEPENDS ${viewer_source}/package.json ${viewer_source}/package-lock.json
    COMMENT "Installing the viewer's npm packages (npm ci)"
    VERBATIM)
  set(viewer_sources main.js data.js shapes.js colors.js overlay.js plots.js live.js viewer.css)
  list(TRANSFORM viewer_sources PREPEND ${viewer_source}/src/ OUTPUT_VARIABLE viewer_inputs)
  add_custom_command(OUTPUT ${TCH_VIEWER_DIR}/viewer.js
    COMMAND ${CMAKE_COMMAND} -E copy_directory ${viewer_source}/src ${TCH_VIEWER_DIR}/src
    COMMAND ${TCH_VIEWER_DIR}/node_modules/.bin/esbuild ${TCH_VIEWER_DIR}/src/main.js --bundle
            --format=iife --minify --target=es2020 --loader:.css=text --log-level=warning
            --outfile=${TCH_VIEWER_DIR}/viewer.js
    DEPENDS ${viewer_installed} ${viewer_inputs}
    COMMENT "Bundling the viewer (esbuild)"
    VERBATIM)
  add_custom_target(touche_viewer DEPENDS ${TCH_VIEWER_DIR}/viewer.js)
  add_dependencies(touche_cli touche_viewer)
  set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/viewer_bundle.c PROPERTIES
    COMPILE_DEFINITIONS TCH_VIEWER_BUNDLE_PATH="${TCH_VIEWER_DIR}/viewer.js"
    OBJECT_DEPENDS ${TCH_VIEWER_DIR}/viewer.js)
  message(STATUS "touche viewer: built with ${TCH_NODE} and ${TCH_NPM}")
else()
  message(STATUS "touche viewer: not built (node or npm not found; touche view will say so)")
endif()

find_path(TCH_CIVETWEB_INCLUDE civetweb.h)
find_library(TCH_CIVETWEB_LIBRARY civetweb)
find_package(Threads REQUIRED)
if(TCH_CIVETWEB_INCLUDE AND TCH_CIVETWEB_LIBRARY)
  set(TCH_LIVE_BUILT ON CACHE INTERNAL "")
  target_compile_definitions(touche_cli PRIVATE TCH_HAVE_CIVETWEB)
  target_include_directories(touche_cli PRIVATE ${TCH_CIVETWEB_INCLUDE})
  target_link_libraries(touche_cli PRIVATE ${TCH_CIVETWEB_LIBRARY} Threads::Threads)
  message(STATUS "touche live mode: with civetweb (${TCH_CIVETWEB_LIBRARY})")
else()
  set(TCH_LIVE_BUILT OFF CACHE INTERNAL "")
  message(STATUS "touche live mode: not built (no civetweb; tools/setup.sh installs libcivetweb-dev)")
endif()
