/* The C API from C (built with gcc -std=c99 -Wall -Werror): every error path returns a status with a code and a
 * message naming the problem, none crashes; and the few successes the error cases are measured against.
 *
 *   api_errors DATA_DIR CLASSIFIER.onnx
 *
 * DATA_DIR holds tests/embed/data (identity.onnx, identity_strings.onnx); CLASSIFIER is a model with one float input
 * whose second dimension is fixed (../shared's ch_ppocr_mobile_v2.0_cls_infer.onnx: x [N,3,H,W]). Prints one line
 * per check; exit status 1 when any check fails. */
#include <onyx/onyx_c_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_failures = 0;
static int g_checks = 0;

/* The call must have failed with `code` and a message containing `needle`. */
static void expect_error(const char* what, onyx_status* status, onyx_status_code code, const char* needle) {
  ++g_checks;
  if (status == NULL) {
    printf("FAIL %s: succeeded, expected an error\n", what);
    ++g_failures;
    return;
  }
  const char* message = onyx_status_get_message(status);
  if (onyx_status_get_code(status) != code || message == NULL || strstr(message, needle) == NULL) {
    printf("FAIL %s: code %d message '%s', expected code %d and '%s'\n", what, (int)onyx_status_get_code(status),
           message ? message : "(null)", (int)code, needle);
    ++g_failures;
  } else {
    printf("ok   %s: %s\n", what, message);
  }
  onyx_status_release(status);
}

/* The call must have succeeded. */
static int expect_ok(const char* what, onyx_status* status) {
  ++g_checks;
  if (status != NULL) {
    printf("FAIL %s: %s\n", what, onyx_status_get_message(status));
    onyx_status_release(status);
    ++g_failures;
    return 0;
  }
  printf("ok   %s\n", what);
  return 1;
}

static void expect_true(const char* what, int condition) {
  ++g_checks;
  printf("%s %s\n", condition ? "ok  " : "FAIL", what);
  if (!condition) ++g_failures;
}

static void check_statuses(void) {
  expect_true("api version matches the header", onyx_api_version() == ONYX_API_VERSION);
  expect_true("version string is set", strlen(onyx_version_string()) > 0);
  expect_true("NULL status reads as OK with an empty message",
              onyx_status_get_code(NULL) == ONYX_OK && strcmp(onyx_status_get_message(NULL), "") == 0);
  onyx_status_release(NULL);
  onyx_session_release(NULL);
  onyx_session_options_release(NULL);
  onyx_value_release(NULL);
  onyx_model_release(NULL);
  onyx_strings_release(NULL);
  onyx_profile_release(NULL);
}

static void check_options(void) {
  onyx_session_options* options = NULL;
  expect_error("options_create(NULL)", onyx_session_options_create(NULL), ONYX_INVALID_ARGUMENT, "'out' is NULL");
  if (!expect_ok("options_create", onyx_session_options_create(&options))) return;
  expect_error("negative threads", onyx_session_options_set_threads(options, -2), ONYX_INVALID_ARGUMENT, "-2");
  expect_error("negative optimization level", onyx_session_options_set_optimization_level(options, -1),
               ONYX_INVALID_ARGUMENT, "-1");
  expect_error("set_threads(NULL options)", onyx_session_options_set_threads(NULL, 1), ONYX_INVALID_ARGUMENT,
               "'options' is NULL");
  expect_error("ort summation order 2", onyx_session_options_set_ort_summation_order(options, 2),
               ONYX_INVALID_ARGUMENT, "got 2");
  expect_ok("ort summation order on", onyx_session_options_set_ort_summation_order(options, 1));
  expect_ok("ort summation order default", onyx_session_options_set_ort_summation_order(options, -1));
  expect_ok("set_profiling", onyx_session_options_set_profiling(options, 1, 0));
  expect_ok("set_optimized_model_path(NULL) clears it", onyx_session_options_set_optimized_model_path(options, NULL));
  onyx_session_options_release(options);
}

static void check_session_creation(const char* data_dir) {
  onyx_session* session = NULL;
  char path[4096];
  snprintf(path, sizeof path, "%s/no_such_model.onnx", data_dir);
  onyx_status* st = onyx_session_create(path, NULL, &session);
  ++g_checks;
  if (st == NULL || strstr(onyx_status_get_message(st), "no_such_model.onnx") == NULL) {
    printf("FAIL missing file: %s\n", st ? onyx_status_get_message(st) : "succeeded");
    ++g_failures;
  } else {
    printf("ok   missing file (code %d): %s\n", (int)onyx_status_get_code(st), onyx_status_get_message(st));
  }
  onyx_status_release(st);
  expect_true("session untouched after a failure", session == NULL);
  expect_error("session_create(NULL path)", onyx_session_create(NULL, NULL, &session), ONYX_INVALID_ARGUMENT,
               "'path' is NULL");
  snprintf(path, sizeof path, "%s/identity.onnx", data_dir);
  expect_error("session_create(NULL out)", onyx_session_create(path, NULL, NULL), ONYX_INVALID_ARGUMENT,
               "'out' is NULL");
  const char garbage[] = "this is not a protobuf \xff\xff\xff\xff";
  st = onyx_session_create_from_bytes(garbage, sizeof garbage, NULL, &session);
  ++g_checks;
  if (st == NULL || strlen(onyx_status_get_message(st)) == 0) {
    printf("FAIL garbage bytes: %s\n", st ? "empty message" : "succeeded");
    ++g_failures;
  } else {
    printf("ok   garbage bytes (code %d): %s\n", (int)onyx_status_get_code(st), onyx_status_get_message(st));
  }
  onyx_status_release(st);
  expect_error("create_from_bytes(NULL data)", onyx_session_create_from_bytes(NULL, 10, NULL, &session),
               ONYX_INVALID_ARGUMENT, "'data' is NULL");
  expect_error("create_from_model(NULL model)", onyx_session_create_from_model(NULL, NULL, &session),
               ONYX_INVALID_ARGUMENT, "'model' is NULL");
}

/* Runs on the classifier: names, types, shapes, buffers. */
static void check_run_errors(const char* classifier) {
  onyx_session* session = NULL;
  if (!expect_ok("load classifier", onyx_session_create(classifier, NULL, &session))) return;
  size_t count = 0;
  expect_ok("input count", onyx_session_get_input_count(session, &count));
  expect_true("one input", count == 1);
  const onyx_io_info* info = NULL;
  expect_error("input index out of range", onyx_session_get_input_info(session, 5, &info), ONYX_INVALID_ARGUMENT,
               "out of range");
  expect_error("output index out of range", onyx_session_get_output_info(session, 1, &info), ONYX_INVALID_ARGUMENT,
               "out of range");
  if (expect_ok("input info", onyx_session_get_input_info(session, 0, &info))) {
    int64_t rank = 0;
    const int64_t* dims = NULL;
    const char* symbol = NULL;
    expect_ok("input shape", onyx_io_info_get_shape(info, &rank, &dims));
    expect_true("rank 4, dim 1 fixed at 3, dim 0 symbolic", rank == 4 && dims[1] == 3 && dims[0] == -1);
    expect_ok("dim 0 name", onyx_io_info_get_dim_name(info, 0, &symbol));
    expect_true("dim 0 has a symbol", symbol != NULL && strlen(symbol) > 0);
    expect_error("dim name out of range", onyx_io_info_get_dim_name(info, 4, &symbol), ONYX_INVALID_ARGUMENT,
                 "out of range");
    expect_error("io_info_get_name(NULL info)", onyx_io_info_get_name(NULL, &symbol), ONYX_INVALID_ARGUMENT,
                 "'info' is NULL");
  }

  static float pixels[1 * 3 * 48 * 192];
  int64_t shape[4] = {1, 3, 48, 192};
  onyx_tensor_view view = {ONYX_ELEMENT_FLOAT, shape, 4, pixels, sizeof pixels};
  const char* name = "x";
  const char* wrong_name = "not_an_input";
  onyx_value* out[1] = {NULL};

  expect_error("wrong input name", onyx_session_run(session, &wrong_name, &view, 1, NULL, 0, out),
               ONYX_INVALID_ARGUMENT, "not_an_input");
  expect_error("input not fed", onyx_session_run(session, NULL, NULL, 0, NULL, 0, out), ONYX_INVALID_ARGUMENT,
               "'x' was not fed");
  onyx_tensor_view wrong_type = view;
  wrong_type.type = ONYX_ELEMENT_INT32;
  expect_error("wrong element type", onyx_session_run(session, &name, &wrong_type, 1, NULL, 0, out),
               ONYX_INVALID_ARGUMENT, "input 'x' expects");
  onyx_tensor_view bad_type = view;
  bad_type.type = (onyx_element_type)99;
  expect_error("invalid element type", onyx_session_run(session, &name, &bad_type, 1, NULL, 0, out),
               ONYX_INVALID_ARGUMENT, "99");
  int64_t wrong_dims[4] = {1, 4, 48, 144}; /* same element count, dimension 1 wrong */
  onyx_tensor_view wrong_shape = view;
  wrong_shape.shape = wrong_dims;
  expect_error("wrong fixed dimension", onyx_session_run(session, &name, &wrong_shape, 1, NULL, 0, out),
               ONYX_INVALID_ARGUMENT, "dimension 1");
  onyx_tensor_view wrong_rank = view;
  wrong_rank.rank = 3;
  expect_error("wrong rank", onyx_session_run(session, &name, &wrong_rank, 1, NULL, 0, out), ONYX_INVALID_ARGUMENT,
               "rank 4");
  onyx_tensor_view small = view;
  small.size_bytes = 16;
  expect_error("buffer too small", onyx_session_run(session, &name, &small, 1, NULL, 0, out), ONYX_INVALID_ARGUMENT,
               "needs 110592 bytes");
  onyx_tensor_view null_data = view;
  null_data.data = NULL;
  expect_error("NULL data", onyx_session_run(session, &name, &null_data, 1, NULL, 0, out), ONYX_INVALID_ARGUMENT,
               "data is NULL");
  onyx_tensor_view null_shape = view;
  null_shape.shape = NULL;
  expect_error("NULL shape", onyx_session_run(session, &name, &null_shape, 1, NULL, 0, out), ONYX_INVALID_ARGUMENT,
               "shape is NULL");
  int64_t negative[4] = {1, 3, -48, 192};
  onyx_tensor_view negative_shape = view;
  negative_shape.shape = negative;
  expect_error("negative dimension", onyx_session_run(session, &name, &negative_shape, 1, NULL, 0, out),
               ONYX_INVALID_ARGUMENT, "negative dimension");
  const char* null_name = NULL;
  expect_error("NULL input name", onyx_session_run(session, &null_name, &view, 1, NULL, 0, out), ONYX_INVALID_ARGUMENT,
               "input_names[0] is NULL");
  expect_error("NULL input arrays", onyx_session_run(session, NULL, NULL, 1, NULL, 0, out), ONYX_INVALID_ARGUMENT,
               "'input_names' is NULL");
  expect_error("NULL session", onyx_session_run(NULL, &name, &view, 1, NULL, 0, out), ONYX_INVALID_ARGUMENT,
               "'session' is NULL");
  expect_error("NULL outputs", onyx_session_run(session, &name, &view, 1, NULL, 0, NULL), ONYX_INVALID_ARGUMENT,
               "'outputs' is NULL");
  const char* wrong_output = "not_an_output";
  expect_error("wrong output name", onyx_session_run(session, &name, &view, 1, &wrong_output, 1, out),
               ONYX_INVALID_ARGUMENT, "not_an_output");
  expect_error("output names missing", onyx_session_run(session, &name, &view, 1, NULL, 1, out), ONYX_INVALID_ARGUMENT,
               "'output_names' is NULL");
  expect_true("outputs untouched after failures", out[0] == NULL);

  /* run_into: the result is float [1, 2]. */
  const char* output_name = NULL;
  expect_ok("output info", onyx_session_get_output_info(session, 0, &info));
  expect_ok("output name", onyx_io_info_get_name(info, &output_name));
  float result[2] = {-1.0f, -1.0f};
  int64_t result_shape[2] = {1, 2};
  onyx_tensor_view into = {ONYX_ELEMENT_FLOAT, result_shape, 2, result, sizeof result};
  int64_t bad_result_shape[2] = {2, 1};
  onyx_tensor_view into_wrong_shape = into;
  into_wrong_shape.shape = bad_result_shape;
  expect_error("run_into wrong shape",
               onyx_session_run_into(session, &name, &view, 1, &output_name, 1, &into_wrong_shape),
               ONYX_INVALID_ARGUMENT, "[1, 2]");
  onyx_tensor_view into_small = into;
  into_small.size_bytes = 4;
  expect_error("run_into buffer too small",
               onyx_session_run_into(session, &name, &view, 1, &output_name, 1, &into_small), ONYX_INVALID_ARGUMENT,
               "needs 8 bytes");
  onyx_tensor_view into_wrong_type = into;
  into_wrong_type.type = ONYX_ELEMENT_DOUBLE;
  expect_error("run_into wrong type",
               onyx_session_run_into(session, &name, &view, 1, &output_name, 1, &into_wrong_type),
               ONYX_INVALID_ARGUMENT, "float");
  expect_true("buffers untouched after failures", result[0] == -1.0f && result[1] == -1.0f);
  expect_error("run_into without output names", onyx_session_run_into(session, &name, &view, 1, NULL, 0, &into),
               ONYX_INVALID_ARGUMENT, "'output_names' is NULL");
  if (expect_ok("run_into", onyx_session_run_into(session, &name, &view, 1, &output_name, 1, &into))) {
    expect_true("softmax output sums to 1",
                result[0] >= 0 && result[1] >= 0 && result[0] + result[1] > 0.999f && result[0] + result[1] < 1.001f);
  }
  onyx_profile* profile = NULL;
  size_t entries = 1;
  expect_ok("profile of a session without profiling", onyx_session_get_profile(session, &profile));
  expect_ok("profile count", onyx_profile_get_count(profile, &entries));
  expect_true("no profile entries", entries == 0);
  onyx_profile_entry entry;
  expect_error("profile entry out of range", onyx_profile_get_entry(profile, 0, &entry), ONYX_INVALID_ARGUMENT,
               "out of range");
  onyx_profile_release(profile);
  onyx_session_release(session);
}

/* Identity: outputs outlive the caller's input buffers; value accessors on the wrong kinds; strings. */
static void check_values(const char* data_dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/identity.onnx", data_dir);
  onyx_session_options* options = NULL;
  onyx_session* session = NULL;
  expect_ok("options", onyx_session_options_create(&options));
  expect_ok("profiling on", onyx_session_options_set_profiling(options, 1, 0));
  if (!expect_ok("load identity", onyx_session_create(path, options, &session))) return;
  onyx_session_options_release(options);
  float* x = malloc(sizeof(float));
  *x = 42.5f;
  int64_t shape[1] = {1};
  onyx_tensor_view view = {ONYX_ELEMENT_FLOAT, shape, 1, x, sizeof(float)};
  const char* name = "x";
  onyx_value* y = NULL;
  if (expect_ok("identity run", onyx_session_run(session, &name, &view, 1, NULL, 0, &y))) {
    *x = -1.0f; /* the output must not alias the caller's buffer */
    free(x);
    x = NULL;
    const void* data = NULL;
    size_t bytes = 0;
    expect_ok("value data", onyx_value_get_data(y, &data, &bytes));
    expect_true("identity output is a copy holding 42.5", bytes == sizeof(float) && *(const float*)data == 42.5f);
    const char* s = NULL;
    size_t length = 0;
    expect_error("get_string on a float tensor", onyx_value_get_string(y, 0, &s, &length), ONYX_INVALID_ARGUMENT,
                 "not a string tensor");
    expect_error("get_data(NULL value)", onyx_value_get_data(NULL, &data, &bytes), ONYX_INVALID_ARGUMENT,
                 "'value' is NULL");
    expect_error("get_data(NULL size)", onyx_value_get_data(y, &data, NULL), ONYX_INVALID_ARGUMENT,
                 "'size_bytes' is NULL");
    onyx_value_release(y);
  }
  free(x);
  onyx_profile* profile = NULL;
  size_t entries = 0;
  expect_ok("profile", onyx_session_get_profile(session, &profile));
  expect_ok("profile count", onyx_profile_get_count(profile, &entries));
  expect_true("the profiling session has entries", entries > 0);
  onyx_profile_release(profile);
  onyx_session_release(session);

  snprintf(path, sizeof path, "%s/identity_strings.onnx", data_dir);
  if (!expect_ok("load string identity", onyx_session_create(path, NULL, &session))) return;
  const char* words[2] = {"hello", "w\xc3\xb6rld"};
  int64_t n[1] = {2};
  onyx_tensor_view strings = {ONYX_ELEMENT_STRING, n, 1, (void*)words, sizeof words};
  name = "s";
  onyx_value* out = NULL;
  if (expect_ok("string run", onyx_session_run(session, &name, &strings, 1, NULL, 0, &out))) {
    const char* s = NULL;
    size_t length = 0;
    expect_ok("string 1", onyx_value_get_string(out, 1, &s, &length));
    expect_true("string 1 round-trips", length == strlen(words[1]) && strcmp(s, words[1]) == 0);
    expect_error("string index out of range", onyx_value_get_string(out, 2, &s, &length), ONYX_INVALID_ARGUMENT,
                 "out of range");
    const void* data = NULL;
    size_t bytes = 0;
    expect_error("get_data on strings", onyx_value_get_data(out, &data, &bytes), ONYX_INVALID_ARGUMENT,
                 "string tensor");
    onyx_value_release(out);
  }
  const char* holes[2] = {"a", NULL};
  onyx_tensor_view with_null = {ONYX_ELEMENT_STRING, n, 1, (void*)holes, sizeof holes};
  expect_error("NULL string element", onyx_session_run(session, &name, &with_null, 1, NULL, 0, &out),
               ONYX_INVALID_ARGUMENT, "string 1 is NULL");
  const char* out_name = "s_out";
  char buffer[64];
  int64_t out_shape[1] = {2};
  onyx_tensor_view into = {ONYX_ELEMENT_STRING, out_shape, 1, buffer, sizeof buffer};
  expect_error("run_into a string output", onyx_session_run_into(session, &name, &strings, 1, &out_name, 1, &into),
               ONYX_UNSUPPORTED, "string");
  onyx_session_release(session);
}

static void check_models(const char* data_dir, const char* classifier) {
  char path[4096];
  onyx_model* model = NULL;
  snprintf(path, sizeof path, "%s/missing.onnx", data_dir);
  onyx_status* st = onyx_model_load(path, &model);
  ++g_checks;
  if (st == NULL || strstr(onyx_status_get_message(st), "missing.onnx") == NULL) {
    printf("FAIL model_load missing file: %s\n", st ? onyx_status_get_message(st) : "succeeded");
    ++g_failures;
  } else {
    printf("ok   model_load missing file: %s\n", onyx_status_get_message(st));
  }
  onyx_status_release(st);
  expect_error("model_load(NULL path)", onyx_model_load(NULL, &model), ONYX_INVALID_ARGUMENT, "'path' is NULL");
  expect_error("model_check(NULL model)", onyx_model_check(NULL, 0, NULL), ONYX_INVALID_ARGUMENT, "'model' is NULL");
  expect_error("infer_shapes(NULL)", onyx_model_infer_shapes(NULL), ONYX_INVALID_ARGUMENT, "'model' is NULL");
  expect_error("model_save(NULL)", onyx_model_save(NULL, "x.onnx"), ONYX_INVALID_ARGUMENT, "'model' is NULL");
  if (!expect_ok("model_load classifier", onyx_model_load(classifier, &model))) return;
  onyx_strings* problems = NULL;
  size_t count = 99;
  expect_ok("model_check --full", onyx_model_check(model, 1, &problems));
  expect_ok("problem count", onyx_strings_get_count(problems, &count));
  expect_true("the classifier is valid", count == 0);
  const char* s = NULL;
  expect_error("strings index out of range", onyx_strings_get(problems, 0, &s), ONYX_INVALID_ARGUMENT, "out of range");
  onyx_strings_release(problems);
  expect_ok("infer_shapes", onyx_model_infer_shapes(model));
  int64_t version = 0;
  expect_ok("opset", onyx_model_get_opset(model, "", &version));
  printf("     classifier imports opset %lld\n", (long long)version);
  onyx_model* converted = NULL;
  expect_error("convert to opset 0", onyx_model_convert_opset(model, 0, &converted), ONYX_INVALID_ARGUMENT, "0");
  expect_true("no model after a failed conversion", converted == NULL);
  if (expect_ok("convert to opset 18", onyx_model_convert_opset(model, 18, &converted))) {
    int64_t v = 0;
    expect_ok("converted opset", onyx_model_get_opset(converted, "ai.onnx", &v));
    expect_true("converted model imports opset 18", v == 18);
    onyx_session* session = NULL;
    expect_ok("session from the converted model", onyx_session_create_from_model(converted, NULL, &session));
    onyx_session_release(session);
  }
  snprintf(path, sizeof path, "%s/no_such_dir/out.onnx", data_dir);
  st = onyx_model_save(model, path);
  ++g_checks;
  if (st == NULL || strlen(onyx_status_get_message(st)) == 0) {
    printf("FAIL save into a missing folder: %s\n", st ? "empty message" : "succeeded");
    ++g_failures;
  } else {
    printf("ok   save into a missing folder (code %d): %s\n", (int)onyx_status_get_code(st),
           onyx_status_get_message(st));
  }
  onyx_status_release(st);
  onyx_model_release(converted);
  onyx_model_release(model);

  expect_error("convert a file of no known format", onyx_convert(classifier, 17, &model), ONYX_INVALID_ARGUMENT,
               "not a model onyx converts");
  snprintf(path, sizeof path, "%s/missing.tflite", data_dir);
  st = onyx_convert(path, 17, &model);
  ++g_checks;
  if (st == NULL || strstr(onyx_status_get_message(st), "missing.tflite") == NULL) {
    printf("FAIL convert a missing file: %s\n", st ? onyx_status_get_message(st) : "succeeded");
    ++g_failures;
  } else {
    printf("ok   convert a missing file (code %d): %s\n", (int)onyx_status_get_code(st), onyx_status_get_message(st));
  }
  onyx_status_release(st);
  expect_error("convert(NULL path)", onyx_convert(NULL, 17, &model), ONYX_INVALID_ARGUMENT, "'path' is NULL");
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: api_errors DATA_DIR CLASSIFIER.onnx\n");
    return 2;
  }
  check_statuses();
  check_options();
  check_session_creation(argv[1]);
  check_run_errors(argv[2]);
  check_values(argv[1]);
  check_models(argv[1], argv[2]);
  printf("%d checks, %d failed\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
