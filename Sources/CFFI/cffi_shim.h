/*
 * cffi_shim.h — the only place autofill touches libffi.
 *
 * Why libffi: the provider C ABI (autofill_provider.h) gives each loaded
 * provider its own table of host services whose functions take no context
 * argument. To know which provider called, the host binds every function
 * pointer of that table to the provider's own state with a libffi closure,
 * as p11-kit does for its per-module function lists. A provider can then
 * only ever reach its own identity store, requests and settings, and has no
 * context pointer to forge or mix up.
 *
 * The shim offers one operation: bind a handler and a user-data pointer into
 * a plain C function pointer of a given signature. Swift never sees ffi_*
 * types. Bindings are made once per provider and live as long as the
 * process, because a provider may keep the pointers for that long.
 */
#ifndef AUTOFILL_CFFI_SHIM_H
#define AUTOFILL_CFFI_SHIM_H

#include <ffi.h>
#include <stdint.h>
#include <stdlib.h>

/** The C types a bound function's arguments and result may have. */
typedef enum cffi_kind {
    CFFI_KIND_VOID = 0,   /* result only */
    CFFI_KIND_POINTER = 1,
    CFFI_KIND_SIZE = 2,   /* size_t */
    CFFI_KIND_INT32 = 3,
    CFFI_KIND_UINT32 = 4,
    CFFI_KIND_UINT64 = 5,
} cffi_kind;

/** Most arguments a bound function may take. */
#define CFFI_MAX_ARGUMENTS 12

/**
 * Called for every call through a bound function pointer, on the caller's
 * thread. `arguments[i]` points to the i-th argument's value. The returned
 * value becomes the function's result (ignored for CFFI_KIND_VOID).
 */
typedef int64_t (*cffi_handler)(void *user_data, void *const *arguments);

/** One bound function. Opaque to callers: use cffi_binding_code. */
typedef struct cffi_binding {
    ffi_cif cif;
    ffi_type *argument_types[CFFI_MAX_ARGUMENTS];
    ffi_closure *closure;
    void *code;
    cffi_kind result_kind;
    cffi_handler handler;
    void *user_data;
} cffi_binding;

static inline ffi_type *cffi_shim_type(cffi_kind kind) {
    switch (kind) {
    case CFFI_KIND_VOID: return &ffi_type_void;
    case CFFI_KIND_POINTER: return &ffi_type_pointer;
    case CFFI_KIND_SIZE: return sizeof(size_t) == 8 ? &ffi_type_uint64 : &ffi_type_uint32;
    case CFFI_KIND_INT32: return &ffi_type_sint32;
    case CFFI_KIND_UINT32: return &ffi_type_uint32;
    case CFFI_KIND_UINT64: return &ffi_type_uint64;
    }
    return NULL;
}

/* libffi calls this for every call through a bound pointer. */
static inline void cffi_shim_trampoline(ffi_cif *cif, void *result, void **arguments, void *user_data) {
    (void)cif;
    cffi_binding *binding = (cffi_binding *)user_data;
    int64_t value = binding->handler(binding->user_data, (void *const *)arguments);
    /* Integral results narrower than a register are returned as ffi_arg. */
    switch (binding->result_kind) {
    case CFFI_KIND_VOID: break;
    case CFFI_KIND_INT32: *(ffi_sarg *)result = (ffi_sarg)(int32_t)value; break;
    case CFFI_KIND_UINT32: *(ffi_arg *)result = (ffi_arg)(uint32_t)value; break;
    case CFFI_KIND_POINTER: *(void **)result = (void *)(intptr_t)value; break;
    case CFFI_KIND_SIZE: *(size_t *)result = (size_t)value; break;
    case CFFI_KIND_UINT64: *(uint64_t *)result = (uint64_t)value; break;
    }
}

/**
 * Bind `handler` and `user_data` into a C function pointer taking
 * `argument_count` arguments of `argument_kinds` and returning `result_kind`.
 * Returns NULL if libffi cannot prepare the call or allocate the closure.
 * The pointer is cffi_binding_code(binding).
 */
static inline cffi_binding *cffi_bind(cffi_kind result_kind, const cffi_kind *argument_kinds,
                                      unsigned argument_count, cffi_handler handler, void *user_data) {
    if (argument_count > CFFI_MAX_ARGUMENTS || handler == NULL) return NULL;
    cffi_binding *binding = (cffi_binding *)calloc(1, sizeof(cffi_binding));
    if (binding == NULL) return NULL;
    for (unsigned i = 0; i < argument_count; i++) {
        ffi_type *type = cffi_shim_type(argument_kinds[i]);
        if (type == NULL || argument_kinds[i] == CFFI_KIND_VOID) { free(binding); return NULL; }
        binding->argument_types[i] = type;
    }
    binding->result_kind = result_kind;
    binding->handler = handler;
    binding->user_data = user_data;
    if (ffi_prep_cif(&binding->cif, FFI_DEFAULT_ABI, argument_count, cffi_shim_type(result_kind),
                     binding->argument_types) != FFI_OK) {
        free(binding);
        return NULL;
    }
    binding->closure = (ffi_closure *)ffi_closure_alloc(sizeof(ffi_closure), &binding->code);
    if (binding->closure == NULL) { free(binding); return NULL; }
    if (ffi_prep_closure_loc(binding->closure, &binding->cif, cffi_shim_trampoline, binding,
                             binding->code) != FFI_OK) {
        ffi_closure_free(binding->closure);
        free(binding);
        return NULL;
    }
    return binding;
}

/** The callable C function pointer of a binding. */
static inline void *cffi_binding_code(const cffi_binding *binding) { return binding->code; }

/** Free a binding. Only when no caller can still hold its pointer. */
static inline void cffi_unbind(cffi_binding *binding) {
    if (binding == NULL) return;
    ffi_closure_free(binding->closure);
    free(binding);
}

#endif /* AUTOFILL_CFFI_SHIM_H */
