// Ends a use of the key declarations (config/sections/*.def): undefines the FS_* macros the
// includer defined to read them. No include guard: included after every such use.
#undef FS_UINT
#undef FS_SIZE
#undef FS_DOUBLE
#undef FS_BOOL
#undef FS_STRING
#undef FS_CHOICE
#undef FS_ENUM
