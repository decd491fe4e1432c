/* Host back end of the handler API: every call of fs_api.def forwards to the table installed with
 * fs_set_backend (generated from its row). Calling the API with no back end installed, or a call
 * the installed table leaves NULL, is a programming error and aborts with a message rather than
 * silently doing nothing. */
#include <stdio.h>
#include <stdlib.h>

#include "fs_handler.h"

static const fs_backend_t* current;
/* Where the handler made its latest call: the call's return address in the handler. */
static const void* caller;

static const fs_backend_t* need(const char* call, int present) {
  if (!current) {
    fprintf(stderr, "flaresim: handler called %s with no handler back end installed\n", call);
    abort();
  }
  if (!present) {
    fprintf(stderr, "flaresim: handler called %s, which the installed handler back end does not provide\n", call);
    abort();
  }
  return current;
}

const void* fs_backend_caller(void) { return caller; }

const fs_backend_t* fs_set_backend(const fs_backend_t* backend) {
  const fs_backend_t* old = current;
  current = backend;
  return old;
}

#define FS_BACKEND_ARGS(...) (b->ctx, __VA_ARGS__)
#define FS_FORWARD(name, ret, params, args)                                   \
  ret fs_##name params {                                                      \
    const fs_backend_t* b = need("fs_" #name, current && current->name != 0); \
    caller = __builtin_return_address(0);                                     \
    return b->name FS_BACKEND_ARGS args;                                      \
  }
#define FS_API_DEVICE(name, ret, params, args, ...) FS_FORWARD(name, ret, params, args)
#define FS_API_LOCAL(name, ret, params, args, doc) FS_FORWARD(name, ret, params, args)
#define FS_API_HELPER(...)
#include "fs_api.def"
#undef FS_API_DEVICE
#undef FS_API_LOCAL
#undef FS_API_HELPER
