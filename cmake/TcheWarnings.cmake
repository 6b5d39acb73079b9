# Warnings, determinism and sanitizer flags shared by every target (style anchors, item 30).
add_library(touche_flags INTERFACE)
target_compile_options(touche_flags INTERFACE
  -Wall -Wextra -Wpedantic -Wvla -Wmissing-prototypes -Wshadow -Wno-unused-parameter
  -ffp-contract=off)
if(TCH_WERROR)
  target_compile_options(touche_flags INTERFACE -Werror)
endif()
if(TCH_SANITIZE)
  target_compile_options(touche_flags INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(touche_flags INTERFACE -fsanitize=address,undefined)
endif()
if(CMAKE_BUILD_TYPE MATCHES "Debug|RelWithDebInfo" OR TCH_SANITIZE)
  target_compile_definitions(touche_flags INTERFACE TCH_ENABLE_ASSERT)
endif()
