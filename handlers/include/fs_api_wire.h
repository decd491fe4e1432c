/* Walking the wire list of a call in fs_api.def: FS_API_EACH(op, item...) expands `op item` for
 * every item, so that `op` (a function-like macro) sees each item's fields as its arguments.
 * Each item is a parenthesised tuple whose first field says its kind (U32, U64, IN, OUT; see
 * fs_api.def); FS_API_KIND(prefix, item fields...) dispatches to prefix##kind. Up to 8 items. */
#ifndef FS_API_WIRE_H
#define FS_API_WIRE_H

#define FS_API_EACH(op, ...) FS_API_EACH_N_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)(op, __VA_ARGS__)
#define FS_API_EACH_N_(a1, a2, a3, a4, a5, a6, a7, a8, n, ...) FS_API_EACH_##n
#define FS_API_EACH_1(op, x) op x
#define FS_API_EACH_2(op, x, ...) op x FS_API_EACH_1(op, __VA_ARGS__)
#define FS_API_EACH_3(op, x, ...) op x FS_API_EACH_2(op, __VA_ARGS__)
#define FS_API_EACH_4(op, x, ...) op x FS_API_EACH_3(op, __VA_ARGS__)
#define FS_API_EACH_5(op, x, ...) op x FS_API_EACH_4(op, __VA_ARGS__)
#define FS_API_EACH_6(op, x, ...) op x FS_API_EACH_5(op, __VA_ARGS__)
#define FS_API_EACH_7(op, x, ...) op x FS_API_EACH_6(op, __VA_ARGS__)
#define FS_API_EACH_8(op, x, ...) op x FS_API_EACH_7(op, __VA_ARGS__)

/* FS_API_KIND(prefix, kind, fields...) -> prefix##kind(fields...) */
#define FS_API_KIND(prefix, kind, ...) prefix##kind(__VA_ARGS__)

/* Parameter lists with the back end's context first: FS_API_CTX_PARAMS (a, b) -> (void* ctx, a, b). */
#define FS_API_CTX_PARAMS(...) (void* ctx, __VA_ARGS__)

#endif /* FS_API_WIRE_H */
