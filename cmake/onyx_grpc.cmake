# The gRPC face of `onyx serve` (KServe v2 GRPCInferenceService, src/serve/grpc/): the code protoc and
# grpc_cpp_plugin generate from proto/grpc_predict_v2.proto plus src/serve/grpc/*.cc, built into the static library
# onyx_grpc and linked into the CLI only, so that libonyx (and the Python module) do not depend on gRPC.
# gRPC is a required dependency: Debian's libgrpc++-dev and protobuf-compiler-grpc (onyx.sh's PACKAGES).
find_package(gRPC CONFIG QUIET)
find_program(ONYX_GRPC_CPP_PLUGIN grpc_cpp_plugin)
if(NOT gRPC_FOUND OR NOT ONYX_GRPC_CPP_PLUGIN)
  message(FATAL_ERROR
    "onyx serve's gRPC server needs gRPC for C++ and its protoc plugin: "
    "apt-get install libgrpc++-dev protobuf-compiler-grpc (or ./onyx.sh setup)")
endif()

add_custom_command(
  OUTPUT ${ONYX_PROTO_OUT}/proto/grpc_predict_v2.pb.cc ${ONYX_PROTO_OUT}/proto/grpc_predict_v2.pb.h
         ${ONYX_PROTO_OUT}/proto/grpc_predict_v2.grpc.pb.cc ${ONYX_PROTO_OUT}/proto/grpc_predict_v2.grpc.pb.h
  COMMAND protobuf::protoc --cpp_out=${ONYX_PROTO_OUT} --grpc_out=${ONYX_PROTO_OUT}
          --plugin=protoc-gen-grpc=${ONYX_GRPC_CPP_PLUGIN} -I ${CMAKE_SOURCE_DIR}
          ${CMAKE_SOURCE_DIR}/proto/grpc_predict_v2.proto
  DEPENDS ${CMAKE_SOURCE_DIR}/proto/grpc_predict_v2.proto protobuf::protoc
  COMMENT "Generating the KServe v2 gRPC code")

file(GLOB ONYX_GRPC_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/serve/grpc/*.cc)
add_library(onyx_grpc STATIC ${ONYX_GRPC_SOURCES} ${ONYX_PROTO_OUT}/proto/grpc_predict_v2.pb.cc
                             ${ONYX_PROTO_OUT}/proto/grpc_predict_v2.grpc.pb.cc)
target_include_directories(onyx_grpc PUBLIC ${CMAKE_SOURCE_DIR}/src ${ONYX_PROTO_OUT})
target_link_libraries(onyx_grpc PUBLIC onyx gRPC::grpc++ protobuf::libprotobuf)
# Warnings for onyx's own files only: the generated code is protoc's.
set_source_files_properties(${ONYX_GRPC_SOURCES} PROPERTIES COMPILE_OPTIONS "${ONYX_WARNINGS}")

target_link_libraries(onyx_cli PRIVATE onyx_grpc)
target_compile_definitions(onyx_cli PRIVATE ONYX_HAVE_GRPC)
