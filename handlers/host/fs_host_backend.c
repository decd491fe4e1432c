/* Host back end of the handler API: forwards every call to the table installed with
 * fs_set_backend. Calling the API with no back end installed is a programming error and aborts
 * with a message rather than silently doing nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_handler.h"

static const fs_backend_t* current;

static const fs_backend_t* need(const char* call) {
  if (!current) {
    fprintf(stderr, "flaresim: handler called %s with no handler back end installed\n", call);
    abort();
  }
  return current;
}

const fs_backend_t* fs_set_backend(const fs_backend_t* backend) {
  const fs_backend_t* old = current;
  current = backend;
  return old;
}

int fs_send(const void* frame, uint32_t len, uint32_t port) {
  const fs_backend_t* b = need("fs_send");
  return b->send(b->ctx, frame, len, port);
}

int fs_multicast(const void* frame, uint32_t len, const uint32_t* ports, uint32_t nports) {
  const fs_backend_t* b = need("fs_multicast");
  return b->multicast(b->ctx, frame, len, ports, nports);
}

int fs_host_write(uint32_t port, uint64_t addr, const void* data, uint32_t len) {
  const fs_backend_t* b = need("fs_host_write");
  return b->host_write(b->ctx, port, addr, data, len);
}

uint8_t* fs_cluster_l1(uint32_t cluster_id, uint32_t* size) {
  const fs_backend_t* b = need("fs_cluster_l1");
  return b->cluster_l1(b->ctx, cluster_id, size);
}

int fs_dma_copy(void* dst, const void* src, uint32_t len) {
  const fs_backend_t* b = need("fs_dma_copy");
  if (b->dma_copy) return b->dma_copy(b->ctx, dst, src, len);
  memmove(dst, src, len);
  return 0;
}
