internal import AutofillABI
internal import AutofillCore
internal import CAutofillProvider
internal import CFFI

/// One provider's `af_host_services` table, every function of which is a libffi closure
/// bound to that provider's ``HostServicesHandler``.
///
/// The C functions take no context argument (see the header's "Why libffi is in the host"):
/// the closure itself knows whose call it is, so a provider can only reach its own store,
/// requests and settings. Tables are built once per provider and never freed, because the
/// provider may keep the pointers for the life of the process (plugins are never unloaded).
package final class HostServicesTable: @unchecked Sendable {
    // @unchecked: `table` is written only in init and read-only afterwards; the
    // closures' user data (HandlerBox) holds only a Sendable handler.

    /// The table to pass to the provider's entry function.
    let table: UnsafeMutablePointer<af_host_services>
    private var bindings: [UnsafeMutablePointer<cffi_binding>] = []

    /// Binds a new table to `handler`.
    init(handler: any HostServicesHandler) throws(AutofillError) {
        table = .allocate(capacity: 1)
        table.initialize(to: af_host_services())
        table.pointee.abi_version = providerABIVersion
        table.pointee.size = UInt32(MemoryLayout<af_host_services>.size)
        do {
            try bindAll(handler)
        } catch {
            throw AutofillError(.internal, "libffi could not bind the host services (\(error.message)); autofill cannot load plugins on this system")
        }
    }

    /// A host write's reason into the provider's buffer, cut on a character boundary to `capacity`.
    private static func copy(_ reason: String, to out: UnsafeMutablePointer<CChar>?, capacity: Int, length: UnsafeMutablePointer<Int>?) {
        var bytes = Array(reason.utf8.prefix(capacity))
        while !bytes.isEmpty && String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        if let out, !bytes.isEmpty { bytes.withUnsafeBytes { UnsafeMutableRawPointer(out).copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
        length?.pointee = bytes.count
    }

    private struct BindingError: Error {
        let message: String
    }

    private func bindAll(_ h: any HostServicesHandler) throws(BindingError) {
        let P = CFFI_KIND_POINTER, S = CFFI_KIND_SIZE, I = CFFI_KIND_INT32, U32 = CFFI_KIND_UINT32
        let U64 = CFFI_KIND_UINT64, V = CFFI_KIND_VOID

        table.pointee.log = try bind(V, [I, P, S]) { a in
            do {
                let message = try CDecode.string(a.pointer(1), a.size(2), field: "message")
                h.log(level: ProviderLogLevel(rawValue: a.int32(0)) ?? .info, message: message)
            } catch {
                h.reportMalformedCall("log", describe(error))
            }
            return 0
        }
        table.pointee.get_setting = try bind(I, [P, S, P, S, P]) { a in
            Self.status {
                let key = try CDecode.string(a.pointer(0), a.size(1), field: "key")
                let out: UnsafeMutablePointer<CChar>? = a.pointer(2), capacity = a.size(3)
                guard let length: UnsafeMutablePointer<Int> = a.pointer(4), capacity >= 0, out != nil || capacity == 0 else {
                    return .invalidArgument
                }
                guard let value = h.setting(forKey: key) else { return .notFound }
                let bytes = Array(value.utf8)
                length.pointee = bytes.count
                guard bytes.count <= capacity, let out else { return bytes.isEmpty ? .ok : .bufferTooSmall }
                bytes.withUnsafeBytes { UnsafeMutableRawPointer(out).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                return .ok
            }
        }
        table.pointee.store_get_state = try bind(I, [P]) { a in
            guard let out: UnsafeMutablePointer<af_store_state> = a.pointer(0) else { return ABIStatus.invalidArgument.wide }
            return Self.storeStatus {
                let state = try h.identityStore.state()
                out.pointee = af_store_state()
                out.pointee.is_enabled = state.isEnabled ? 1 : 0
                out.pointee.supports_incremental_updates = state.supportsIncrementalUpdates ? 1 : 0
            }
        }
        table.pointee.store_save = try bindIdentities(h, "store_save") { try h.identityStore.save($0) }
        table.pointee.store_remove = try bindIdentities(h, "store_remove") { try h.identityStore.remove($0) }
        table.pointee.store_replace = try bindIdentities(h, "store_replace") { try h.identityStore.replace(with: $0) }
        table.pointee.store_remove_all = try bind(I, []) { _ in Self.storeStatus { try h.identityStore.removeAll() } }

        table.pointee.complete_password = try bind(I, [U64, P, S, P, S]) { a in
            Self.complete(h, a) {
                .password(PasswordCredential(
                    user: try CDecode.string(a.pointer(1), a.size(2), field: "user"),
                    password: Secret(try CDecode.string(a.pointer(3), a.size(4), field: "password"))))
            }
        }
        table.pointee.complete_passkey_assertion = try bind(I, [U64, P]) { a in
            Self.complete(h, a) {
                guard let c: UnsafePointer<af_passkey_assertion> = a.pointer(1) else { throw ABIDecodingError("assertion: NULL") }
                return .passkeyAssertion(try CDecode.passkeyAssertion(c.pointee))
            }
        }
        table.pointee.complete_passkey_registration = try bind(I, [U64, P]) { a in
            Self.complete(h, a) {
                guard let c: UnsafePointer<af_passkey_registration> = a.pointer(1) else { throw ABIDecodingError("registration: NULL") }
                return .passkeyRegistration(try CDecode.passkeyRegistration(c.pointee))
            }
        }
        table.pointee.complete_one_time_code = try bind(I, [U64, P, S]) { a in
            Self.complete(h, a) { .oneTimeCode(Secret(try CDecode.string(a.pointer(1), a.size(2), field: "code"))) }
        }
        table.pointee.complete_text = try bind(I, [U64, P, S]) { a in
            Self.complete(h, a) { .text(Secret(try CDecode.string(a.pointer(1), a.size(2), field: "text"))) }
        }
        table.pointee.complete_configuration = try bind(I, [U64]) { a in
            Int64(h.complete(request: a.uint64(0), with: .credential(.configurationCompleted)).rawValue)
        }
        table.pointee.complete_save_password = try bind(I, [U64]) { a in
            h.complete(request: a.uint64(0), with: .credential(.passwordSaved)).wide
        }
        table.pointee.complete_generated_password = try bind(I, [U64, P, S]) { a in
            Self.complete(h, a) { .generatedPassword(Secret(try CDecode.string(a.pointer(1), a.size(2), field: "password"))) }
        }
        table.pointee.complete_credential_update = try bind(I, [U64]) { a in
            h.complete(request: a.uint64(0), with: .credential(.updateReported)).wide
        }
        table.pointee.add_file = try bind(I, [U64, P, S, P, S, P, S, P, S, P]) { a in
            let request = a.uint64(0)
            let out: UnsafeMutablePointer<CChar>? = a.pointer(7), capacity = a.size(8)
            let length: UnsafeMutablePointer<Int>? = a.pointer(9)
            let folder: String, name: String, contents: [UInt8]
            do {
                guard capacity >= 0, out != nil || capacity == 0 else { throw ABIDecodingError("reason: NULL with a capacity") }
                folder = try CDecode.string(a.pointer(1), a.size(2), field: "folder")
                name = try CDecode.string(a.pointer(3), a.size(4), field: "name")
                contents = try CDecode.bytes(af_bytes(data: a.pointer(5), length: a.size(6)), field: "contents")
                guard !contents.isEmpty else { throw ABIDecodingError("contents: empty") }
            } catch {
                h.reportMalformedCall("add_file", describe(error))
                return ABIStatus.invalidArgument.wide
            }
            let (status, reason) = h.addFile(request: request, folder: folder, name: name, contents: contents)
            Self.copy(reason, to: out, capacity: capacity, length: length)
            return status.wide
        }
        table.pointee.replace_file = try bind(I, [U64, P, S, P, S, P, P, S, P]) { a in
            let request = a.uint64(0)
            let out: UnsafeMutablePointer<CChar>? = a.pointer(6), capacity = a.size(7)
            let length: UnsafeMutablePointer<Int>? = a.pointer(8)
            let path: String, contents: UnsafeRawBufferPointer, expected: [UInt8]
            do {
                guard capacity >= 0, out != nil || capacity == 0 else { throw ABIDecodingError("reason: NULL with a capacity") }
                path = try CDecode.string(a.pointer(1), a.size(2), field: "path")
                // Not copied: read during this call only (a database may be hundreds of MiB).
                try CDecode.checkLength(a.size(4), limit: Int(AF_MAX_REPLACE_FILE_LENGTH), field: "contents")
                guard a.size(4) > 0 else { throw ABIDecodingError("contents: empty") }
                guard let bytes: UnsafePointer<UInt8> = a.pointer(3) else { throw ABIDecodingError("contents: NULL pointer with length \(a.size(4))") }
                contents = UnsafeRawBufferPointer(start: bytes, count: a.size(4))
                guard let digest: UnsafePointer<UInt8> = a.pointer(5) else { throw ABIDecodingError("expected_sha256: NULL") }
                expected = Array(UnsafeBufferPointer(start: digest, count: 32))
            } catch {
                h.reportMalformedCall("replace_file", describe(error))
                return ABIStatus.invalidArgument.wide
            }
            let (status, reason) = h.replaceFile(request: request, path: path, contents: contents, expectedSHA256: expected)
            Self.copy(reason, to: out, capacity: capacity, length: length)
            return status.wide
        }
        table.pointee.open_file = try bind(I, [P, S, P, P, S, P]) { a in
            let out: UnsafeMutablePointer<CChar>? = a.pointer(3), capacity = a.size(4)
            let length: UnsafeMutablePointer<Int>? = a.pointer(5)
            let path: String
            guard let descriptor: UnsafeMutablePointer<Int32> = a.pointer(2) else {
                h.reportMalformedCall("open_file", "descriptor: NULL")
                return ABIStatus.invalidArgument.wide
            }
            descriptor.pointee = -1
            do {
                guard capacity >= 0, out != nil || capacity == 0 else { throw ABIDecodingError("reason: NULL with a capacity") }
                path = try CDecode.string(a.pointer(0), a.size(1), field: "path")
            } catch {
                h.reportMalformedCall("open_file", describe(error))
                return ABIStatus.invalidArgument.wide
            }
            let (status, reason, opened) = h.openFile(path: path)
            if status == .ok { descriptor.pointee = opened }
            Self.copy(reason, to: out, capacity: capacity, length: length)
            return status.wide
        }
        table.pointee.cancel_request = try bind(I, [U64, I, P, S]) { a in
            let answer: ProviderAnswer
            do {
                let reason = try CDecode.string(a.pointer(2), a.size(3), field: "reason")
                if let code = ExtensionError.Code(rawValue: a.int32(1)) {
                    answer = .error(ExtensionError(code, failureReason: reason.isEmpty ? nil : reason))
                } else {
                    answer = .malformed("error code \(a.int32(1)) is not an AF_ERROR_* value")
                }
            } catch {
                answer = .malformed(describe(error))
            }
            return Int64(h.complete(request: a.uint64(0), with: answer).rawValue)
        }

        table.pointee.ui_prompt = try bind(I, [U64, P, S, P, S, U32, P, S, P]) { a in
            Self.status {
                guard let answer: UnsafeMutablePointer<CChar> = a.pointer(6), let length: UnsafeMutablePointer<Int> = a.pointer(8),
                    a.size(7) > 0
                else { return .invalidArgument }
                // A capacity of 2^63 or more arrives negative and was refused above; no answer is longer
                // than a string may be.
                let capacity = min(a.size(7), Int(AF_MAX_STRING_LENGTH))
                let request = UserInterfaceRequest.prompt(
                    title: try CDecode.string(a.pointer(1), a.size(2), field: "title"),
                    message: try CDecode.string(a.pointer(3), a.size(4), field: "message"),
                    secret: a.uint32(5) & UInt32(AF_UI_PROMPT_SECRET) != 0, maxLength: capacity)
                return Self.ui(h, a.uint64(0), request) { reply in
                    guard case .text(let text) = reply else { return .invalidArgument }
                    let bytes = Array(text.revealed.utf8)
                    guard bytes.count <= capacity else { return .uiCanceled }
                    bytes.withUnsafeBytes { raw in
                        if let base = raw.baseAddress { UnsafeMutableRawPointer(answer).copyMemory(from: base, byteCount: raw.count) }
                    }
                    length.pointee = bytes.count
                    return .ok
                }
            }
        }
        table.pointee.ui_choose = try bind(I, [U64, P, S, P, S, P]) { a in
            Self.status {
                guard let chosen: UnsafeMutablePointer<Int> = a.pointer(5) else { return .invalidArgument }
                let items = try CDecode.array(a.pointer(3) as UnsafePointer<af_str>?, a.size(4), limit: 100_000, field: "items")
                var texts: [String] = []
                for (index, item) in items.enumerated() { texts.append(try CDecode.string(item, field: "items[\(index)]")) }
                guard !texts.isEmpty else { return .invalidArgument }
                let request = UserInterfaceRequest.choose(
                    title: try CDecode.string(a.pointer(1), a.size(2), field: "title"), items: texts)
                return Self.ui(h, a.uint64(0), request) { reply in
                    guard case .choice(let index) = reply, texts.indices.contains(index) else { return .invalidArgument }
                    chosen.pointee = index
                    return .ok
                }
            }
        }
        table.pointee.ui_confirm = try bind(I, [U64, P, S, P, S, P]) { a in
            Self.status {
                guard let confirmed: UnsafeMutablePointer<Int32> = a.pointer(5) else { return .invalidArgument }
                let request = UserInterfaceRequest.confirm(
                    title: try CDecode.string(a.pointer(1), a.size(2), field: "title"),
                    message: try CDecode.string(a.pointer(3), a.size(4), field: "message"))
                return Self.ui(h, a.uint64(0), request) { reply in
                    guard case .confirmed(let yes) = reply else { return .invalidArgument }
                    confirmed.pointee = yes ? 1 : 0
                    return .ok
                }
            }
        }
        table.pointee.ui_message = try bind(I, [U64, P, S, P, S]) { a in
            Self.status {
                let request = UserInterfaceRequest.message(
                    title: try CDecode.string(a.pointer(1), a.size(2), field: "title"),
                    message: try CDecode.string(a.pointer(3), a.size(4), field: "message"))
                return Self.ui(h, a.uint64(0), request) { _ in .ok }
            }
        }
    }

    // MARK: Binding

    /// The Swift side of one bound function: decodes the raw arguments and returns the C result.
    private final class HandlerBox: Sendable {
        let body: @Sendable (FFIArguments) -> Int64
        init(_ body: @escaping @Sendable (FFIArguments) -> Int64) { self.body = body }
    }

    /// Binds `body` into a C function pointer of type `F` (the table field's type).
    private func bind<F>(_ result: cffi_kind, _ arguments: [cffi_kind], _ body: @escaping @Sendable (FFIArguments) -> Int64)
        throws(BindingError) -> F
    {
        // Retained for the life of the process, like the table (plugins are never unloaded).
        let box = Unmanaged.passRetained(HandlerBox(body)).toOpaque()
        let trampoline: cffi_handler = { userData, arguments in
            let box = Unmanaged<HandlerBox>.fromOpaque(userData!).takeUnretainedValue()
            return box.body(FFIArguments(raw: arguments!))
        }
        let binding = arguments.withUnsafeBufferPointer {
            cffi_bind(result, $0.baseAddress, UInt32($0.count), trampoline, box)
        }
        guard let binding else {
            Unmanaged<HandlerBox>.fromOpaque(box).release()
            throw BindingError(message: "cffi_bind failed for a function of \(arguments.count) arguments")
        }
        bindings.append(binding)
        return unsafeBitCast(cffi_binding_code(binding), to: F.self)
    }

    private func bindIdentities<F>(
        _ h: any HostServicesHandler, _ name: String,
        _ write: @escaping @Sendable ([CredentialIdentity]) throws -> Void
    ) throws(BindingError) -> F {
        try bind(CFFI_KIND_INT32, [CFFI_KIND_POINTER, CFFI_KIND_SIZE]) { a in
            let identities: [CredentialIdentity]
            do {
                identities = try CDecode.identities(a.pointer(0), a.size(1))
            } catch {
                h.reportMalformedCall(name, describe(error))
                return ABIStatus.invalidArgument.wide
            }
            return Self.storeStatus { try write(identities) }
        }
    }

    // MARK: Result helpers

    private static func status(_ body: () throws -> ABIStatus) -> Int64 {
        do {
            return try body().wide
        } catch {
            return ABIStatus.invalidArgument.wide
        }
    }

    private static func storeStatus(_ body: () throws -> Void) -> Int64 {
        do {
            try body()
            return ABIStatus.ok.wide
        } catch let error as IdentityStoreError {
            return ABIStatus(error.code).wide
        } catch {
            return ABIStatus(.internalError).wide
        }
    }

    private static func complete(
        _ h: any HostServicesHandler, _ a: FFIArguments, _ decode: () throws -> Credential
    ) -> Int64 {
        let answer: ProviderAnswer
        do {
            answer = .credential(try decode())
        } catch {
            answer = .malformed(describe(error))
        }
        return h.complete(request: a.uint64(0), with: answer).wide
    }

    private static func ui(
        _ h: any HostServicesHandler, _ request: UInt64, _ ui: UserInterfaceRequest,
        _ deliver: (UserInterfaceAnswer) -> ABIStatus
    ) -> ABIStatus {
        do {
            return deliver(try h.present(ui, forRequest: request))
        } catch .canceled {
            return .uiCanceled
        } catch {
            return .uiUnavailable
        }
    }
}

/// The raw arguments of one call through a bound function: `raw[i]` points to argument i.
struct FFIArguments {
    let raw: UnsafePointer<UnsafeMutableRawPointer?>

    func int32(_ index: Int) -> Int32 { raw[index]!.load(as: Int32.self) }
    func uint32(_ index: Int) -> UInt32 { raw[index]!.load(as: UInt32.self) }
    func uint64(_ index: Int) -> UInt64 { raw[index]!.load(as: UInt64.self) }
    func size(_ index: Int) -> Int { Int(bitPattern: raw[index]!.load(as: UInt.self)) }
    func pointer<T>(_ index: Int) -> UnsafePointer<T>? { raw[index]!.load(as: UnsafePointer<T>?.self) }
    func pointer<T>(_ index: Int) -> UnsafeMutablePointer<T>? { raw[index]!.load(as: UnsafeMutablePointer<T>?.self) }
}

/// The message of a decoding error, or the error's description.
private func describe(_ error: any Error) -> String {
    (error as? ABIDecodingError)?.message ?? "\(error)"
}

extension ABIStatus {
    /// The status widened for a bound function's result.
    var wide: Int64 { Int64(rawValue) }
}
