/* classify: the onyx C API end to end. Loads an image classifier, reads its input tensor from a .npy file (float32,
 * C order), runs it with the input borrowed in place (no copy), and prints the five best classes.
 *
 *   classify MODEL.onnx INPUT.npy [THREADS]
 *
 * Output: one line per class, best first: "<rank> <class index> <score>". Exit status 1 on any error, with the
 * C API's message on stderr. */
#include <onyx/onyx_c_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints the status' message and returns 1 when the call failed (and frees the status). */
static int failed(onyx_status* status) {
  if (status == NULL) return 0;
  fprintf(stderr, "classify: %s\n", onyx_status_get_message(status));
  onyx_status_release(status);
  return 1;
}

/* A float32 .npy file: its shape and elements (malloc'ed). Returns 0 on success. */
typedef struct npy_array {
  int64_t shape[8];
  size_t rank;
  float* data;
  size_t count;
} npy_array;

static int read_npy(const char* path, npy_array* out) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "classify: cannot open %s\n", path);
    return 1;
  }
  unsigned char magic[8];
  int rc = 1;
  char* header = NULL;
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6) != 0) goto done;
  size_t header_len = 0;
  if (magic[6] == 1) {
    unsigned char len[2];
    if (fread(len, 1, 2, f) != 2) goto done;
    header_len = (size_t)len[0] | ((size_t)len[1] << 8);
  } else {
    unsigned char len[4];
    if (fread(len, 1, 4, f) != 4) goto done;
    header_len = (size_t)len[0] | ((size_t)len[1] << 8) | ((size_t)len[2] << 16) | ((size_t)len[3] << 24);
  }
  header = calloc(header_len + 1, 1);
  if (header == NULL || fread(header, 1, header_len, f) != header_len) goto done;
  if (strstr(header, "'<f4'") == NULL || strstr(header, "'fortran_order': False") == NULL) {
    fprintf(stderr, "classify: %s is not a C-order float32 array\n", path);
    goto done;
  }
  const char* p = strstr(header, "'shape': (");
  if (p == NULL) goto done;
  p += strlen("'shape': (");
  out->rank = 0;
  out->count = 1;
  while (*p != ')' && out->rank < 8) {
    char* end = NULL;
    long long d = strtoll(p, &end, 10);
    if (end == p) break;
    out->shape[out->rank++] = d;
    out->count *= (size_t)d;
    p = end;
    while (*p == ',' || *p == ' ') ++p;
  }
  out->data = malloc(out->count * sizeof(float) + 1);
  if (out->data == NULL || fread(out->data, sizeof(float), out->count, f) != out->count) goto done;
  rc = 0;
done:
  if (rc != 0) fprintf(stderr, "classify: cannot read %s as .npy\n", path);
  free(header);
  fclose(f);
  return rc;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: classify MODEL.onnx INPUT.npy [THREADS]\n");
    return 2;
  }
  if (onyx_api_version() != ONYX_API_VERSION) {
    fprintf(stderr, "classify: libonyx has C API version %u, this program was built for %d\n",
            (unsigned)onyx_api_version(), ONYX_API_VERSION);
    return 1;
  }
  npy_array input = {{0}, 0, NULL, 0};
  if (read_npy(argv[2], &input) != 0) return 1;

  int rc = 1;
  onyx_session_options* options = NULL;
  onyx_session* session = NULL;
  onyx_value* output = NULL;
  if (failed(onyx_session_options_create(&options))) goto done;
  if (argc > 3 && failed(onyx_session_options_set_threads(options, atoi(argv[3])))) goto done;
  if (failed(onyx_session_create(argv[1], options, &session))) goto done;

  /* The model's first input and output, by name. */
  const onyx_io_info* info = NULL;
  const char* input_name = NULL;
  const char* output_name = NULL;
  if (failed(onyx_session_get_input_info(session, 0, &info)) || failed(onyx_io_info_get_name(info, &input_name)))
    goto done;
  if (failed(onyx_session_get_output_info(session, 0, &info)) || failed(onyx_io_info_get_name(info, &output_name)))
    goto done;

  onyx_tensor_view view = {ONYX_ELEMENT_FLOAT, input.shape, input.rank, input.data, input.count * sizeof(float)};
  if (failed(onyx_session_run(session, &input_name, &view, 1, &output_name, 1, &output))) goto done;

  const void* data = NULL;
  size_t bytes = 0;
  if (failed(onyx_value_get_data(output, &data, &bytes))) goto done;
  const float* scores = (const float*)data;
  size_t n = bytes / sizeof(float);
  /* Top 5 by repeated selection (n is small for a classifier's output). */
  char* taken = calloc(n, 1);
  if (taken == NULL) goto done;
  for (size_t rank = 0; rank < 5 && rank < n; ++rank) {
    size_t best = n;
    for (size_t i = 0; i < n; ++i) {
      if (!taken[i] && (best == n || scores[i] > scores[best])) best = i;
    }
    taken[best] = 1;
    printf("%zu %zu %.7g\n", rank + 1, best, (double)scores[best]);
  }
  free(taken);
  rc = 0;
done:
  onyx_value_release(output);
  onyx_session_release(session);
  onyx_session_options_release(options);
  free(input.data);
  return rc;
}
