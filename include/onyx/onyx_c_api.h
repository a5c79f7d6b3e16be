/*
 * onyx C API: load ONNX models, run them, and work on models (check, infer shapes, convert opset, save, convert from
 * Keras/TensorFlow/TFLite), from C or any language with a C foreign-function interface. docs/c-api.md describes it.
 *
 * Conventions (the same for every function):
 * - Every function that can fail returns an `onyx_status*`: NULL on success, else an error object the caller owns
 *   and frees with onyx_status_release(). The exceptions are onyx_api_version(), onyx_version_string(), the
 *   onyx_status_* accessors and the *_release functions, which cannot fail.
 * - Handles are opaque. A handle returned through an `out` argument is owned by the caller and freed with its
 *   *_release function (which accepts NULL). Strings and arrays returned through `const` pointers are borrowed:
 *   they stay valid as long as the handle they came from.
 * - On failure, `out` arguments are left unchanged.
 * - No C++ exception ever crosses this boundary; running out of memory is reported as ONYX_OUT_OF_MEMORY.
 * - Threads: a session may be run from several threads at once (onyx_session_run*); other handles (options,
 *   models, values) must not be used from two threads at the same time while one of them changes it.
 */
#ifndef ONYX_ONYX_C_API_H_
#define ONYX_ONYX_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI version of this header. onyx_api_version() returns the library's; they must be equal. */
#define ONYX_API_VERSION 1

/** Error categories (onyx_status_code). */
typedef enum onyx_status_code {
  ONYX_OK = 0,               /**< never carried by a status object: success is a NULL status */
  ONYX_INVALID_ARGUMENT = 1, /**< a bad argument: NULL pointer, unknown input name, wrong type or shape, bad model */
  ONYX_NOT_FOUND = 2,        /**< a file or named item does not exist */
  ONYX_UNSUPPORTED = 3,      /**< valid, but not implemented by onyx (an operator, an element type...) */
  ONYX_IO_ERROR = 4,         /**< reading or writing a file failed */
  ONYX_INTERNAL = 5,         /**< a bug in onyx */
  ONYX_FAILED_CHECK = 6,     /**< a model failed validation */
  ONYX_OUT_OF_MEMORY = 7     /**< an allocation failed */
} onyx_status_code;

/** Element types, numbered as ONNX's TensorProto.DataType. */
typedef enum onyx_element_type {
  ONYX_ELEMENT_UNDEFINED = 0, /**< not a tensor, or the type is not declared */
  ONYX_ELEMENT_FLOAT = 1,
  ONYX_ELEMENT_UINT8 = 2,
  ONYX_ELEMENT_INT8 = 3,
  ONYX_ELEMENT_UINT16 = 4,
  ONYX_ELEMENT_INT16 = 5,
  ONYX_ELEMENT_INT32 = 6,
  ONYX_ELEMENT_INT64 = 7,
  ONYX_ELEMENT_STRING = 8, /**< data is an array of NUL-terminated `const char*` (see onyx_tensor_view) */
  ONYX_ELEMENT_BOOL = 9,   /**< one byte per element, 0 or 1 */
  ONYX_ELEMENT_FLOAT16 = 10,
  ONYX_ELEMENT_DOUBLE = 11,
  ONYX_ELEMENT_UINT32 = 12,
  ONYX_ELEMENT_UINT64 = 13,
  ONYX_ELEMENT_COMPLEX64 = 14,
  ONYX_ELEMENT_COMPLEX128 = 15,
  ONYX_ELEMENT_BFLOAT16 = 16,
  ONYX_ELEMENT_FLOAT8E4M3FN = 17,
  ONYX_ELEMENT_FLOAT8E4M3FNUZ = 18,
  ONYX_ELEMENT_FLOAT8E5M2 = 19,
  ONYX_ELEMENT_FLOAT8E5M2FNUZ = 20,
  ONYX_ELEMENT_UINT4 = 21, /**< packed two per byte, as ONNX stores them */
  ONYX_ELEMENT_INT4 = 22,
  ONYX_ELEMENT_FLOAT4E2M1 = 23,
  ONYX_ELEMENT_FLOAT8E8M0 = 24,
  ONYX_ELEMENT_UINT2 = 25, /**< packed four per byte */
  ONYX_ELEMENT_INT2 = 26
} onyx_element_type;

/** What a model input or output holds (onyx_io_info_kind, onyx_value_kind). */
typedef enum onyx_value_kind {
  ONYX_KIND_UNKNOWN = 0, /**< undeclared (an input or output without a type) */
  ONYX_KIND_TENSOR = 1,
  ONYX_KIND_SEQUENCE = 2,
  ONYX_KIND_MAP = 3,
  ONYX_KIND_OPTIONAL = 4, /**< an optional type; as a value: an optional without a value */
  ONYX_KIND_OTHER = 5     /**< sparse tensors, opaque types */
} onyx_value_kind;

/** An error: code and message. Owned by the caller; free with onyx_status_release(). */
typedef struct onyx_status onyx_status;
/** Settings for creating a session. */
typedef struct onyx_session_options onyx_session_options;
/** A loaded, optimized, compiled model ready to run. Runs may happen from several threads at once. */
typedef struct onyx_session onyx_session;
/** Type and shape of one model input or output; borrowed from its session or model. */
typedef struct onyx_io_info onyx_io_info;
/** A value produced by a run (owned, immutable). */
typedef struct onyx_value onyx_value;
/** An ONNX model in memory, for checking, shape inference, opset conversion, saving, or creating sessions. */
typedef struct onyx_model onyx_model;
/** A list of strings (e.g. the checker's problems). */
typedef struct onyx_strings onyx_strings;
/** Per-operator times collected by a profiling session. */
typedef struct onyx_profile onyx_profile;

/**
 * A tensor in memory the caller owns (not a handle: a plain description filled in by the caller).
 * As a run input it is borrowed for the duration of the call, never copied (strings excepted) and never written.
 * As an output buffer (onyx_session_run_into) `data` receives the result.
 */
typedef struct onyx_tensor_view {
  onyx_element_type type;
  const int64_t* shape; /**< `rank` dimensions (may be NULL when rank is 0) */
  size_t rank;
  void* data;        /**< row-major elements; for ONYX_ELEMENT_STRING an array of `const char*` */
  size_t size_bytes; /**< bytes available at `data` (for strings: element count * sizeof(const char*)) */
} onyx_tensor_view;

/** One profile entry (onyx_profile_entry). */
typedef struct onyx_profile_entry {
  const char* op;  /**< operator type (domain-qualified outside ai.onnx), or "name (op_type)" per node */
  double total_ms; /**< time over all profiled runs */
  int64_t calls;
} onyx_profile_entry;

/* ---------------------------------------------------------------------------------------------------------------- */
/* Version and errors                                                                                                */

/** The ABI version of the library (compare with ONYX_API_VERSION). */
uint32_t onyx_api_version(void);
/** The library's version, e.g. "0.1.0" (static storage). */
const char* onyx_version_string(void);

/** The status' code (ONYX_OK for NULL). */
onyx_status_code onyx_status_get_code(const onyx_status* status);
/** The status' message ("" for NULL); valid until the status is released. */
const char* onyx_status_get_message(const onyx_status* status);
/** Frees a status; NULL is allowed. */
void onyx_status_release(onyx_status* status);

/* ---------------------------------------------------------------------------------------------------------------- */
/* Session options                                                                                                   */

/** New options with the defaults: all cores, optimization level "all", no profiling. */
onyx_status* onyx_session_options_create(onyx_session_options** out);
/** Frees options; NULL is allowed. Sessions created from them do not need them any more. */
void onyx_session_options_release(onyx_session_options* options);
/** Intra-operator threads; 0 means all cores. Negative numbers are an error. */
onyx_status* onyx_session_options_set_threads(onyx_session_options* options, int threads);
/** Graph optimization level as onnxruntime numbers it: 0 disabled, 1 basic, 2 extended, 99 (or any above 2) all. */
onyx_status* onyx_session_options_set_optimization_level(onyx_session_options* options, int level);
/** Float sums in ONNX Runtime's order (outputs bit-identical to its unoptimized graph, docs/kernels.md): 1 on, 0 off,
 *  -1 the default (on at optimization level 0 only). Other values are an error. */
onyx_status* onyx_session_options_set_ort_summation_order(onyx_session_options* options, int mode);
/** Time every node (onyx_session_get_profile); `per_node` != 0 keeps one entry per node instead of per operator. */
onyx_status* onyx_session_options_set_profiling(onyx_session_options* options, int enable, int per_node);
/** When not NULL or empty, the optimized model is saved to this path when a session is created. */
onyx_status* onyx_session_options_set_optimized_model_path(onyx_session_options* options, const char* path);

/* ---------------------------------------------------------------------------------------------------------------- */
/* Sessions                                                                                                          */

/** Loads, optimizes and compiles the model at `path`. `options` may be NULL (defaults). */
onyx_status* onyx_session_create(const char* path, const onyx_session_options* options, onyx_session** out);
/** Same from the bytes of an .onnx file (copied; external data resolves against the current directory). */
onyx_status* onyx_session_create_from_bytes(const void* data, size_t size, const onyx_session_options* options,
                                            onyx_session** out);
/** Same from a model in memory (copied: the model may be released or changed afterwards). */
onyx_status* onyx_session_create_from_model(const onyx_model* model, const onyx_session_options* options,
                                            onyx_session** out);
/** Frees a session; NULL is allowed. No run may be in progress. */
void onyx_session_release(onyx_session* session);

/** Number of inputs a caller feeds (initializers that double as inputs are not counted). */
onyx_status* onyx_session_get_input_count(const onyx_session* session, size_t* count);
/** Number of outputs. */
onyx_status* onyx_session_get_output_count(const onyx_session* session, size_t* count);
/** Input `index`'s name, type and shape; borrowed from the session. */
onyx_status* onyx_session_get_input_info(const onyx_session* session, size_t index, const onyx_io_info** info);
/** Output `index`'s name, type and shape; borrowed from the session. */
onyx_status* onyx_session_get_output_info(const onyx_session* session, size_t index, const onyx_io_info** info);

/** The name (borrowed). */
onyx_status* onyx_io_info_get_name(const onyx_io_info* info, const char** name);
/** Tensor, sequence, map... */
onyx_status* onyx_io_info_get_kind(const onyx_io_info* info, onyx_value_kind* kind);
/** The element type of a tensor (ONYX_ELEMENT_UNDEFINED for other kinds or when not declared). */
onyx_status* onyx_io_info_get_element_type(const onyx_io_info* info, onyx_element_type* type);
/**
 * The declared shape: `*rank` = -1 when unknown; else `*dims` points to `*rank` sizes (borrowed), -1 for a
 * dimension that is symbolic or unknown (onyx_io_info_get_dim_name gives the symbol).
 */
onyx_status* onyx_io_info_get_shape(const onyx_io_info* info, int64_t* rank, const int64_t** dims);
/** The symbol of dimension `axis` ("batch"), or "" when the dimension is a number or unknown (borrowed). */
onyx_status* onyx_io_info_get_dim_name(const onyx_io_info* info, size_t axis, const char** name);

/**
 * Runs the model. `inputs[i]` is fed as `input_names[i]` (borrowed, zero-copy: keep the memory unchanged during the
 * call). `output_names` selects `num_outputs` outputs in that order; with `output_names` NULL and `num_outputs` 0
 * every output is returned in model order and `outputs` must have room for onyx_session_get_output_count() handles.
 * Each `outputs[i]` is a new value the caller releases. Thread-safe: one session may run on several threads at once.
 */
onyx_status* onyx_session_run(const onyx_session* session, const char* const* input_names,
                              const onyx_tensor_view* inputs, size_t num_inputs, const char* const* output_names,
                              size_t num_outputs, onyx_value** outputs);
/**
 * Runs the model and copies the tensor outputs `output_names[0..num_outputs)` into the caller's buffers
 * `outputs[i]`, whose `type` and `shape` must be the result's (else an error naming the output and its actual type
 * and shape) and whose `size_bytes` must hold it. String outputs need onyx_session_run. Thread-safe.
 */
onyx_status* onyx_session_run_into(const onyx_session* session, const char* const* input_names,
                                   const onyx_tensor_view* inputs, size_t num_inputs, const char* const* output_names,
                                   size_t num_outputs, onyx_tensor_view* outputs);

/** The per-operator times of the runs so far, largest first (empty unless profiling was enabled). */
onyx_status* onyx_session_get_profile(const onyx_session* session, onyx_profile** out);
/** Number of entries. */
onyx_status* onyx_profile_get_count(const onyx_profile* profile, size_t* count);
/** Entry `index` (its `op` string is borrowed from the profile). */
onyx_status* onyx_profile_get_entry(const onyx_profile* profile, size_t index, onyx_profile_entry* entry);
/** Frees a profile; NULL is allowed. */
void onyx_profile_release(onyx_profile* profile);

/* ---------------------------------------------------------------------------------------------------------------- */
/* Values (run outputs)                                                                                              */

/** Tensor, sequence, map or optional-without-value. Only tensors have type, shape and data. */
onyx_status* onyx_value_get_kind(const onyx_value* value, onyx_value_kind* kind);
/** The element type of a tensor value. */
onyx_status* onyx_value_get_element_type(const onyx_value* value, onyx_element_type* type);
/** The shape of a tensor value: `*dims` (borrowed) has `*rank` entries. */
onyx_status* onyx_value_get_shape(const onyx_value* value, size_t* rank, const int64_t** dims);
/** The number of elements of a tensor value. */
onyx_status* onyx_value_get_element_count(const onyx_value* value, size_t* count);
/** The elements of a non-string tensor value, row-major (borrowed, read-only) and their size in bytes. */
onyx_status* onyx_value_get_data(const onyx_value* value, const void** data, size_t* size_bytes);
/** Element `index` of a string tensor value: bytes (borrowed, NUL-terminated) and length. */
onyx_status* onyx_value_get_string(const onyx_value* value, size_t index, const char** data, size_t* length);
/** Frees a value; NULL is allowed. */
void onyx_value_release(onyx_value* value);

/* ---------------------------------------------------------------------------------------------------------------- */
/* Models                                                                                                            */

/** Loads an .onnx file (external data memory-mapped). */
onyx_status* onyx_model_load(const char* path, onyx_model** out);
/** Loads a model from the bytes of an .onnx file (copied). */
onyx_status* onyx_model_load_from_bytes(const void* data, size_t size, onyx_model** out);
/** Frees a model; NULL is allowed. */
void onyx_model_release(onyx_model* model);
/**
 * Validates the model against the ONNX IR rules and operator schemas (`full` != 0 also runs shape inference) and
 * returns every problem found, one string each ("where: message [rule]"); an empty list means valid.
 */
onyx_status* onyx_model_check(const onyx_model* model, int full, onyx_strings** problems);
/** Runs shape and type inference, writing the results into the model (value_info and outputs). */
onyx_status* onyx_model_infer_shapes(onyx_model* model);
/** A copy of the model converted to default-domain opset `opset`. */
onyx_status* onyx_model_convert_opset(const onyx_model* model, int64_t opset, onyx_model** out);
/** The version of `domain` ("" or "ai.onnx" for the default domain) the model imports; 0 when not imported. */
onyx_status* onyx_model_get_opset(const onyx_model* model, const char* domain, int64_t* version);
/** Saves the model as an .onnx file. */
onyx_status* onyx_model_save(const onyx_model* model, const char* path);
/** Number of inputs a caller feeds (initializers that double as inputs are not counted). */
onyx_status* onyx_model_get_input_count(const onyx_model* model, size_t* count);
/** Number of outputs. */
onyx_status* onyx_model_get_output_count(const onyx_model* model, size_t* count);
/** Input `index`'s name, type and shape; borrowed from the model and invalidated when the model changes. */
onyx_status* onyx_model_get_input_info(const onyx_model* model, size_t index, const onyx_io_info** info);
/** Output `index`'s name, type and shape; borrowed from the model and invalidated when the model changes. */
onyx_status* onyx_model_get_output_info(const onyx_model* model, size_t index, const onyx_io_info** info);

/**
 * Converts a model of another framework to ONNX at default-domain opset `opset` (13..21): a Keras model (.keras,
 * .h5, TF.js layers .json), a TF.js graph-model (.json), a frozen TensorFlow graph (.pb), a SavedModel directory or
 * a TFLite FlatBuffer (.tflite). See docs/keras.md and docs/tensorflow.md.
 */
onyx_status* onyx_convert(const char* path, int64_t opset, onyx_model** out);

/* ---------------------------------------------------------------------------------------------------------------- */
/* String lists                                                                                                      */

/** Number of strings. */
onyx_status* onyx_strings_get_count(const onyx_strings* strings, size_t* count);
/** String `index` (borrowed, NUL-terminated). */
onyx_status* onyx_strings_get(const onyx_strings* strings, size_t index, const char** value);
/** Frees the list; NULL is allowed. */
void onyx_strings_release(onyx_strings* strings);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONYX_ONYX_C_API_H_ */
