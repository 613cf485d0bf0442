# edgewise_library(<folder> DEPENDS <targets>...): the library edgewise_<folder>, alias
# edgewise::<folder>, built from every .cpp in the folder.
function(edgewise_library folder)
  cmake_parse_arguments(ARG "" "" "DEPENDS;PRIVATE_DEPENDS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  if(NOT sources)
    add_library(edgewise_${folder} INTERFACE)
    target_link_libraries(edgewise_${folder} INTERFACE ${ARG_DEPENDS})
    set_target_properties(edgewise_${folder} PROPERTIES EXPORT_NAME ${folder})
  else()
    add_library(edgewise_${folder} ${sources})
    target_link_libraries(edgewise_${folder} PUBLIC ${ARG_DEPENDS} PRIVATE $<BUILD_INTERFACE:edgewise_warnings> ${ARG_PRIVATE_DEPENDS})
    # The installed file name keeps the edgewise_ prefix: libedgewise_core.a, ...
    set_target_properties(edgewise_${folder} PROPERTIES EXPORT_NAME ${folder})
    # The Python module links these static libraries into a shared object.
    if(EDGEWISE_PYTHON)
      set_target_properties(edgewise_${folder} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    endif()
  endif()
  add_library(edgewise::${folder} ALIAS edgewise_${folder})
endfunction()
