/*
 * swflow's C API over libjq 1.8.2, for a wasm32-wasi reactor module (see README.md):
 *
 *   jqw_compile(program) -> handle (0: compile error, message in jqw_message)
 *   jqw_input(input JSON) -> status; the input of the following runs
 *   jqw_run(handle, limit, budget) -> status; outputs in jqw_result, errors in jqw_message
 *   jqw_steps() -> the steps the last run took
 *   jqw_free(handle)
 *
 * A program is compiled once and run many times: jq re-parses its builtins on every compile
 * (~1 ms), a run of a compiled program costs microseconds. An input is parsed once and kept
 * for the runs that follow (jq values are immutable): several expressions over the same data
 * parse it once (jq parses ~30 MB/s, so a 3 kB document costs ~90 µs).
 *
 * Texts cross the boundary as UTF-8 bytes in linear memory: the host writes programs and
 * inputs into buffers from jqw_alloc (NUL-terminated for programs, as jq's C string API
 * needs), and reads results from jqw_result/jqw_message/jqw_stderr with their lengths. Those
 * three stay valid until the next compile or run.
 *
 * Messages are the texts the jq command line would print (`jq -c` on one input), so the host
 * can present errors exactly as a CLI-based engine did: compile errors are the formatted lines
 * plus "jq: N compile error(s)", a runtime error is jq's message (a non-string error value is
 * dumped as JSON, JQW_ERROR_NOT_STRING), `halt_error` gives its exit code and the text it
 * prints, and `debug`/`stderr` output is collected in jqw_stderr.
 *
 * Step budget: jq counts the steps of a run (an interpreter step: one bytecode instruction
 * dispatched or backtracked into). With a budget, a run that needs more steps is halted
 * (JQW_BUDGET): nothing in the program can catch that (try, ?, //, label/break, limit, first).
 * The count depends only on the program and the input, never on time, caches or the instance,
 * so a replayed workflow stops at the same point. With a budget (only then) the count also
 * charges the run's allocations, from jq_start to jq_stop_metering, this file's output texts
 * included (vendor/jq/src/jv_alloc.c: 1 step per 1,024 bytes allocated, 1 per 16 bytes by which
 * the peak of live jq values rises), so that work inside one C builtin (`"x" * 1e9`, `join`,
 * `sort` of a huge array) is bounded too. An allocation past the budget is not made: jq traps
 * there (an allocation cannot fail safely in jq), after setting the flag that `partial` (below)
 * points to; the host reads that and the outputs so far from memory, reports the same budget
 * stop, and discards the instance. The patch is in vendor/jq/src (see vendor/jq/SOURCE.md).
 *
 * Per-call variables cannot be jq `--arg`s here (they are fixed at compile time): callers
 * pass them inside the input and bind them in the program (`. as [$in, $vars] | ...`).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "jq.h"
#include "jv.h"
#include "jv_alloc.h"

#define EXPORT(name) __attribute__((export_name(name)))

/* jqw_run statuses. */
enum {
  JQW_OK = 0,
  JQW_ERROR = 1,            /* uncaught error, jqw_message = jq's message string */
  JQW_ERROR_NOT_STRING = 2, /* uncaught error whose value is not a string: its JSON dump */
  JQW_HALT = 3,             /* halt / halt_error: jqw_exit_code, jqw_message as printed */
  JQW_BAD_INPUT = 4,        /* the input is not one JSON text: jqw_message = parser message */
  JQW_BUDGET = 5,           /* the run needed more steps than its budget: stopped, outputs so far kept */
};

/* The current result texts (jv strings, owned here), and the current input. */
static jv result, message, err_text;
static int exit_code;
static jv input_value;
static uint64_t steps; /* of the last run */

/*
 * What a run produced so far, for the host to read after the allocator stopped the run with a
 * trap (see "Step budget" above): the host reads these five words from linear memory (address
 * from jqw_partial, taken before any run) and calls nothing in the trapped instance. `result`
 * is "[" and the outputs so far, comma-separated, without the closing "]"; both texts are
 * updated only once an output or a debug/stderr message is complete, so they are whole.
 */
static struct {
  const int *over_budget; /* jv_alloc.c's jv_mem_over_budget: 1 if the trap was the budget's */
  const char *result;
  int result_len;
  const char *err;
  int err_len;
} partial = {&jv_mem_over_budget, 0, 0, 0, 0};

static void commit_err(void) {
  partial.err = jv_string_value(err_text);
  partial.err_len = jv_string_length_bytes(jv_copy(err_text));
}

static void reset_texts(void) {
  static int started;
  if (started) {
    jv_free(result);
    jv_free(message);
    jv_free(err_text);
  }
  started = 1;
  result = jv_string("");
  message = jv_string("");
  err_text = jv_string("");
  exit_code = 0;
  partial.result = 0;
  partial.result_len = 0;
  commit_err();
}

static jv append(jv s, jv text) {
  s = jv_string_append_buf(s, jv_string_value(text), jv_string_length_bytes(jv_copy(text)));
  jv_free(text);
  return s;
}

/* Compile errors (and any error jq reports outside a result), as jq's default callback prints them. */
static void on_error(void *data, jv msg) {
  jv *into = data;
  msg = jq_format_error(msg);
  if (jv_get_kind(msg) == JV_KIND_STRING) *into = append(*into, msg);
  else jv_free(msg);
  *into = jv_string_append_str(*into, "\n");
  if (into == &err_text) commit_err();
}

/* `debug`, as jq's main prints it with -c. */
static void on_debug(void *data, jv input) {
  (void)data;
  err_text = append(err_text, jv_dump_string(JV_ARRAY(jv_string("DEBUG:"), input), 0));
  err_text = jv_string_append_str(err_text, "\n");
  commit_err();
}

/* `stderr`: strings raw, other values as JSON. */
static void on_stderr(void *data, jv input) {
  (void)data;
  if (jv_get_kind(input) == JV_KIND_STRING) err_text = append(err_text, input);
  else err_text = append(err_text, jv_dump_string(input, 0));
  commit_err();
}

EXPORT("jqw_alloc") void *jqw_alloc(size_t size) { return malloc(size ? size : 1); }

EXPORT("jqw_dealloc") void jqw_dealloc(void *p) { free(p); }

EXPORT("jqw_result") const char *jqw_result(void) { return jv_string_value(result); }
EXPORT("jqw_result_len") int jqw_result_len(void) { return jv_string_length_bytes(jv_copy(result)); }
EXPORT("jqw_message") const char *jqw_message(void) { return jv_string_value(message); }
EXPORT("jqw_message_len") int jqw_message_len(void) { return jv_string_length_bytes(jv_copy(message)); }
EXPORT("jqw_stderr") const char *jqw_stderr(void) { return jv_string_value(err_text); }
EXPORT("jqw_stderr_len") int jqw_stderr_len(void) { return jv_string_length_bytes(jv_copy(err_text)); }
EXPORT("jqw_exit_code") int jqw_exit_code(void) { return exit_code; }
/* The address of `partial` (above): what the host reads after a trap. */
EXPORT("jqw_partial") void *jqw_partial(void) { return &partial; }
/* The steps the last jqw_run took (0 if it did not start), saturating at INT32_MAX; a run
 * stopped by its budget reports budget + 1. */
EXPORT("jqw_steps") int jqw_steps(void) { return steps > INT32_MAX ? INT32_MAX : (int)steps; }

/*
 * Compiles a NUL-terminated program. Returns a handle, or 0 with the compile errors in
 * jqw_message. `$ARGS` is `{positional: [], named: {}}` and `$__prog_args` absent, as for
 * `jq -c PROGRAM`; there is no module search path (no filesystem): `import`/`include` fail.
 */
EXPORT("jqw_compile") jq_state *jqw_compile(const char *program) {
  reset_texts();
  jq_state *jq = jq_init();
  if (!jq) {
    message = jv_string("jq: error: cannot allocate memory\n");
    return 0;
  }
  jq_set_error_cb(jq, on_error, &message);
  jq_set_attr(jq, jv_string("JQ_LIBRARY_PATH"), jv_array());
  jv args = JV_OBJECT(jv_string("ARGS"), JV_OBJECT(jv_string("positional"), jv_array(), jv_string("named"), jv_object()),
                      jv_string("JQ_BUILD_CONFIGURATION"), jv_string("swflow wasm32-wasi (wasm/jq/build.sh)"));
  if (!jq_compile_args(jq, program, args)) {
    jq_teardown(&jq);
    return 0;
  }
  jq_set_error_cb(jq, on_error, &err_text);
  jq_set_debug_cb(jq, on_debug, NULL);
  jq_set_stderr_cb(jq, on_stderr, NULL);
  return jq;
}

/*
 * Parses one JSON text (`len` bytes) as the input of the following runs. JQW_BAD_INPUT (the
 * parser's message in jqw_message) leaves no input.
 */
EXPORT("jqw_input") int jqw_input(const char *input, int len) {
  reset_texts();
  jv_free(input_value);
  input_value = jv_parse_sized(input, len);
  if (jv_is_valid(input_value)) return JQW_OK;
  message = jv_invalid_get_msg(input_value);
  input_value = jv_invalid();
  if (jv_get_kind(message) != JV_KIND_STRING) {
    jv_free(message);
    message = jv_string("invalid input");
  }
  return JQW_BAD_INPUT;
}

/*
 * Runs a compiled program on the current input. jqw_result is the JSON array of the outputs
 * produced (also those before an error, halt or the budget's stop), each as `jq -c` prints it.
 * With `limit` > 0 the run stops after that many outputs (JQW_OK). With `budget` > 0 a run
 * that needs more than `budget` steps stops there (JQW_BUDGET); 0 (or less): no budget.
 */
EXPORT("jqw_run") int jqw_run(jq_state *jq, int limit, int budget) {
  reset_texts();
  steps = 0;
  if (!jv_is_valid(input_value)) {
    message = jv_string("no input");
    return JQW_BAD_INPUT;
  }
  jv value = jv_copy(input_value);
  jv_free(result);
  result = jv_string("[");
  partial.result = jv_string_value(result);
  partial.result_len = 1;
  jq_set_step_budget(jq, budget > 0 ? (uint64_t)budget : 0);
  /* With a budget, from jq_start to jq_stop_metering allocations add to the run's count, this
   * loop's too (the outputs' texts): see "Step budget" above. */
  jq_start(jq, value, 0);
  int n = 0;
  jv out = jv_invalid();
  while ((limit <= 0 || n < limit) && jv_is_valid(out = jq_next(jq))) {
    if (n++) result = jv_string_append_str(result, ",");
    result = append(result, jv_dump_string(out, 0));
    out = jv_invalid();
    partial.result = jv_string_value(result);
    partial.result_len = jv_string_length_bytes(jv_copy(result));
  }
  jq_stop_metering(jq);
  result = jv_string_append_str(result, "]");
  steps = jq_get_steps(jq);

  int status = JQW_OK;
  if (budget > 0 && steps > (uint64_t)budget) {
    /* Only the budget's own halt leaves the count above it (jq stops before that step runs). */
    status = JQW_BUDGET;
  } else if (jq_halted(jq)) {
    /* As jq's main: no exit code means 0, a non-number means 5; the message is printed raw
     * when a string, as JSON plus a newline otherwise, not at all when null. */
    jv code = jq_get_exit_code(jq);
    exit_code = !jv_is_valid(code) ? 0 : jv_get_kind(code) == JV_KIND_NUMBER ? (int)jv_number_value(code) : 5;
    jv_free(code);
    jv msg = jq_get_error_message(jq);
    if (jv_get_kind(msg) == JV_KIND_STRING) {
      message = append(message, msg);
    } else if (jv_get_kind(msg) == JV_KIND_NULL || !jv_is_valid(msg)) {
      jv_free(msg);
    } else {
      message = append(message, jv_dump_string(msg, 0));
      message = jv_string_append_str(message, "\n");
    }
    status = JQW_HALT;
  } else if (jv_invalid_has_msg(jv_copy(out))) {
    jv msg = jv_invalid_get_msg(jv_copy(out));
    if (jv_get_kind(msg) == JV_KIND_STRING) {
      message = append(message, msg);
      status = JQW_ERROR;
    } else {
      message = append(message, jv_dump_string(msg, 0));
      status = JQW_ERROR_NOT_STRING;
    }
  }
  jv_free(out);
  return status;
}

EXPORT("jqw_free") void jqw_free(jq_state *jq) { jq_teardown(&jq); }
