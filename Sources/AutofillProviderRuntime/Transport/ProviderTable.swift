internal import AutofillABI
package import AutofillCore
internal import CAutofillProvider

/// A provider's `af_provider` table as the host reads it: only entries inside the table's
/// declared size count, so an older, smaller table of the same ABI version reads as NULLs.
package struct ProviderTable: @unchecked Sendable {
    // @unchecked: the ABI requires the table to stay valid and unchanged for the life of the
    // process; the host only reads it.
    let pointer: UnsafePointer<af_provider>

    /// The smallest table size this host accepts for ABI version 1: the fields through
    /// `prepare_interface_for_text_to_insert`, the last entry of the first ABI 1 header. A provider
    /// built against it has none of the entries appended since (save, generate, credential updates).
    static let minimumSize = MemoryLayout<af_provider>.offset(of: \af_provider.prepare_interface_for_save_password)!

    var abiVersion: UInt32 { pointer.pointee.abi_version }
    var size: Int { Int(pointer.pointee.size) }
    var context: UnsafeMutableRawPointer? { pointer.pointee.context }

    /// Whether the table's declared size covers the field at `keyPath`.
    private func covers<T>(_ keyPath: KeyPath<af_provider, T>) -> Bool {
        guard let offset = MemoryLayout<af_provider>.offset(of: keyPath) else { return false }
        return offset + MemoryLayout<T>.size <= size
    }

    private func entry<T>(_ keyPath: KeyPath<af_provider, T?>) -> T? {
        covers(keyPath) ? pointer.pointee[keyPath: keyPath] : nil
    }

    var prepareCredentialList: (@convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafePointer<af_service_identifier>?, Int) -> Void)? {
        entry(\.prepare_credential_list)
    }
    var prepareCredentialListForPasskey: (@convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafePointer<af_service_identifier>?, Int, UnsafePointer<af_passkey_parameters>?) -> Void)? {
        entry(\.prepare_credential_list_for_passkey)
    }
    var prepareOneTimeCodeList: (@convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafePointer<af_service_identifier>?, Int) -> Void)? {
        entry(\.prepare_one_time_code_list)
    }
    var provideWithoutUserInteraction: (@convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafePointer<af_credential_request>?) -> Void)? {
        entry(\.provide_credential_without_user_interaction)
    }
    var prepareInterfaceToProvide: (@convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafePointer<af_credential_request>?) -> Void)? {
        entry(\.prepare_interface_to_provide_credential)
    }
    var prepareInterfaceForRegistration: (@convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafePointer<af_credential_request>?) -> Void)? {
        entry(\.prepare_interface_for_passkey_registration)
    }
    var performRegistrationWithoutUserInteraction: (@convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafePointer<af_credential_request>?) -> Void)? {
        entry(\.perform_passkey_registration_without_user_interaction)
    }
    var prepareInterfaceForConfiguration: (@convention(c) (UnsafeMutableRawPointer?, UInt64) -> Void)? {
        entry(\.prepare_interface_for_extension_configuration)
    }
    var prepareInterfaceForText: (@convention(c) (UnsafeMutableRawPointer?, UInt64) -> Void)? {
        entry(\.prepare_interface_for_text_to_insert)
    }

    var prepareInterfaceForSavePassword: (@convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafePointer<af_save_password_request>?) -> Void)? {
        entry(\.prepare_interface_for_save_password)
    }
    var prepareInterfaceForGeneratePassword: (@convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafePointer<af_generate_password_request>?) -> Void)? {
        entry(\.prepare_interface_for_generate_password)
    }
    var reportCredentialUpdate: (@convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafePointer<af_credential_update>?) -> Void)? {
        entry(\.report_credential_update)
    }

    /// The entry points the table offers.
    package var entryPoints: EntryPoints {
        var offered = EntryPoints()
        func add(_ present: Bool, _ entryPoint: EntryPoint) { if present { offered.insert(EntryPoints(entryPoint)) } }
        add(prepareCredentialList != nil, .prepareCredentialList)
        add(prepareCredentialListForPasskey != nil, .prepareCredentialListForPasskey)
        add(prepareOneTimeCodeList != nil, .prepareOneTimeCodeList)
        add(provideWithoutUserInteraction != nil, .provideCredentialWithoutUserInteraction)
        add(prepareInterfaceToProvide != nil, .prepareInterfaceToProvideCredential)
        add(prepareInterfaceForRegistration != nil, .prepareInterfaceForPasskeyRegistration)
        add(performRegistrationWithoutUserInteraction != nil, .performPasskeyRegistrationWithoutUserInteraction)
        add(prepareInterfaceForConfiguration != nil, .prepareInterfaceForExtensionConfiguration)
        add(prepareInterfaceForText != nil, .prepareInterfaceForTextToInsert)
        add(prepareInterfaceForSavePassword != nil, .prepareInterfaceForSavePassword)
        add(prepareInterfaceForGeneratePassword != nil, .prepareInterfaceForGeneratePassword)
        add(reportCredentialUpdate != nil, .reportCredentialUpdate)
        return offered
    }

    /// Calls the entry point for `request` with id `id`. The caller checked it is offered.
    package func call(_ request: ProviderRequest, id: UInt64) {
        let context = self.context
        withCArena { arena in
            switch request {
            case .credentialList(let services):
                let (list, count) = arena.serviceIdentifiers(services)
                prepareCredentialList?(context, id, list, count)
            case .passkeyCredentialList(let services, let parameters):
                let (list, count) = arena.serviceIdentifiers(services)
                prepareCredentialListForPasskey?(context, id, list, count, arena.passkeyParameters(parameters))
            case .oneTimeCodeList(let services):
                let (list, count) = arena.serviceIdentifiers(services)
                prepareOneTimeCodeList?(context, id, list, count)
            case .credentialWithoutUserInteraction(let request):
                provideWithoutUserInteraction?(context, id, arena.credentialRequest(request))
            case .interfaceToProvideCredential(let request):
                prepareInterfaceToProvide?(context, id, arena.credentialRequest(request))
            // The entry point decides the style; the parameters always agree with it.
            case .passkeyRegistration(var request):
                request.parameters.style = .standard
                prepareInterfaceForRegistration?(context, id, arena.registrationRequest(request))
            case .conditionalPasskeyRegistration(var request):
                request.parameters.style = .conditional
                performRegistrationWithoutUserInteraction?(context, id, arena.registrationRequest(request))
            case .extensionConfiguration:
                prepareInterfaceForConfiguration?(context, id)
            case .textToInsert:
                prepareInterfaceForText?(context, id)
            case .savePassword(let request):
                prepareInterfaceForSavePassword?(context, id, arena.savePasswordRequest(request))
            case .generatePassword(let request):
                prepareInterfaceForGeneratePassword?(context, id, arena.generatePasswordRequest(request))
            case .credentialUpdate(let update):
                reportCredentialUpdate?(context, id, arena.credentialUpdate(update))
            }
        }
    }
}
