internal import Glibc

/// A shared library opened with `dlopen`: the only place autofill calls the dynamic loader.
///
/// Opened with `RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE` and never closed: unloading a
/// Swift plugin crashes the Swift runtime later, and `RTLD_LOCAL` lets every plugin
/// export its own entry symbol without clashing.
struct DynamicLibrary: @unchecked Sendable {
    // @unchecked: the handle is an opaque token the loader owns; dlsym is thread-safe.
    private let handle: UnsafeMutableRawPointer

    /// Opens `path`, or returns the dynamic loader's message.
    static func open(_ path: String) -> Result<DynamicLibrary, DynamicLibraryError> {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            return .failure(DynamicLibraryError(message: lastError() ?? "dlopen failed"))
        }
        return .success(DynamicLibrary(handle: handle))
    }

    /// The address of exported symbol `name`, if the library exports it.
    func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        _ = dlerror()
        return dlsym(handle, name)
    }

    private static func lastError() -> String? {
        dlerror().map { String(cString: $0) }
    }
}

/// A message from the dynamic loader.
struct DynamicLibraryError: Error {
    let message: String
}
