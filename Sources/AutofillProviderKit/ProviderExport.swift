internal import AutofillCore
internal import AutofillABI
internal import CAutofillProvider

/// Turns a ``CredentialProvider`` type into the C ABI's entry function result.
///
/// Export one C function from your plugin and forward to ``entry(_:hostABIVersion:host:)``:
///
/// ```swift
/// @c(my_provider_entry)
/// public func myProviderEntry(_ version: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
///     ProviderExport.entry(MyProvider.self, hostABIVersion: version, host: host)
/// }
/// ```
public enum ProviderExport {
    /// Creates the provider and returns its `af_provider` table, or nil to refuse to load: another
    /// ABI version, a host table that is not ABI 1's, or the provider's `init` threw (logged).
    public static func entry<P: CredentialProvider>(_ type: P.Type, hostABIVersion: UInt32, host: UnsafeRawPointer?)
        -> UnsafeRawPointer?
    {
        guard hostABIVersion == providerABIVersion, let services = hostServices(host) else { return nil }
        let providerHost = ProviderHost(services: services)
        let provider: P
        do {
            provider = try P(host: providerHost)
        } catch {
            providerHost.log(.error, "the provider refused to load: \(error)")
            return nil
        }
        // Both live as long as the process: the host never unloads a plugin.
        let box = Unmanaged.passRetained(ProviderBox(provider: provider, host: providerHost)).toOpaque()
        let table = UnsafeMutablePointer<af_provider>.allocate(capacity: 1)
        table.initialize(to: makeTable(for: P.self, context: box))
        return UnsafeRawPointer(table)
    }

    /// The host's table as this SDK reads it: a host built against an earlier ABI 1 header has a
    /// smaller table, so it is copied into a zero-filled one of this build's size, whose entries past
    /// the host's `size` are NULL (the completions of newer requests, which such a host never sends).
    /// Nil when the table is not ABI 1 or smaller than the first ABI 1 table.
    static func hostServices(_ host: UnsafeRawPointer?) -> HostServices? {
        guard let host else { return nil }
        let header = host.assumingMemoryBound(to: UInt32.self)
        let size = Int(header[1])
        let firstSize = MemoryLayout<af_host_services>.offset(of: \af_host_services.complete_save_password)!
        guard header[0] == providerABIVersion, size >= firstSize else { return nil }
        guard size < MemoryLayout<af_host_services>.size else {
            return HostServices(pointer: host.assumingMemoryBound(to: af_host_services.self))
        }
        // Lives as long as the process, like the host's table.
        let copy = UnsafeMutablePointer<af_host_services>.allocate(capacity: 1)
        copy.initialize(to: af_host_services())
        UnsafeMutableRawPointer(copy).copyMemory(from: host, byteCount: size)
        return HostServices(pointer: UnsafePointer(copy))
    }

    /// The table with an entry for each protocol `P` conforms to.
    static func makeTable<P: CredentialProvider>(for type: P.Type, context: UnsafeMutableRawPointer) -> af_provider {
        var table = af_provider()
        table.abi_version = providerABIVersion
        table.size = UInt32(MemoryLayout<af_provider>.size)
        table.context = context
        if P.self is any CredentialListProviding.Type {
            table.prepare_credential_list = { context, request, services, count in
                ProviderBox.with(context, request) { box, ctx in
                    let list = try CDecode.serviceIdentifiers(services, count)
                    (box.provider as? any CredentialListProviding)?.prepareCredentialList(for: list, context: ctx)
                }
            }
        }
        if P.self is any PasskeyCredentialListProviding.Type {
            table.prepare_credential_list_for_passkey = { context, request, services, count, parameters in
                ProviderBox.with(context, request) { box, ctx in
                    let list = try CDecode.serviceIdentifiers(services, count)
                    guard let parameters else { throw ABIDecodingError("parameters: NULL") }
                    (box.provider as? any PasskeyCredentialListProviding)?.prepareCredentialList(
                        for: list, requestParameters: try CDecode.passkeyParameters(parameters.pointee), context: ctx)
                }
            }
        }
        if P.self is any OneTimeCodeListProviding.Type {
            table.prepare_one_time_code_list = { context, request, services, count in
                ProviderBox.with(context, request) { box, ctx in
                    let list = try CDecode.serviceIdentifiers(services, count)
                    (box.provider as? any OneTimeCodeListProviding)?.prepareOneTimeCodeCredentialList(for: list, context: ctx)
                }
            }
        }
        if P.self is any CredentialProviding.Type {
            table.provide_credential_without_user_interaction = { context, request, credentialRequest in
                ProviderBox.with(context, request) { box, ctx in
                    guard let credentialRequest else { throw ABIDecodingError("request: NULL") }
                    (box.provider as? any CredentialProviding)?.provideCredentialWithoutUserInteraction(
                        for: try CDecode.credentialRequest(credentialRequest.pointee), context: ctx)
                }
            }
            table.prepare_interface_to_provide_credential = { context, request, credentialRequest in
                ProviderBox.with(context, request) { box, ctx in
                    guard let credentialRequest else { throw ABIDecodingError("request: NULL") }
                    (box.provider as? any CredentialProviding)?.prepareInterfaceToProvideCredential(
                        for: try CDecode.credentialRequest(credentialRequest.pointee), context: ctx)
                }
            }
        }
        if P.self is any PasskeyRegistrationProviding.Type {
            table.prepare_interface_for_passkey_registration = { context, request, registration in
                ProviderBox.with(context, request) { box, ctx in
                    guard let registration else { throw ABIDecodingError("request: NULL") }
                    (box.provider as? any PasskeyRegistrationProviding)?.prepareInterface(
                        forPasskeyRegistration: try CDecode.registrationRequest(registration.pointee), context: ctx)
                }
            }
        }
        if P.self is any ConditionalPasskeyRegistrationProviding.Type {
            table.perform_passkey_registration_without_user_interaction = { context, request, registration in
                ProviderBox.with(context, request) { box, ctx in
                    guard let registration else { throw ABIDecodingError("request: NULL") }
                    (box.provider as? any ConditionalPasskeyRegistrationProviding)?.performWithoutUserInteractionIfPossible(
                        passkeyRegistration: try CDecode.registrationRequest(registration.pointee), context: ctx)
                }
            }
        }
        if P.self is any ExtensionConfigurationProviding.Type {
            table.prepare_interface_for_extension_configuration = { context, request in
                ProviderBox.with(context, request) { box, ctx in
                    (box.provider as? any ExtensionConfigurationProviding)?.prepareInterfaceForExtensionConfiguration(context: ctx)
                }
            }
        }
        if P.self is any SavePasswordProviding.Type {
            table.prepare_interface_for_save_password = { context, request, save in
                ProviderBox.with(context, request) { box, ctx in
                    guard let save else { throw ABIDecodingError("request: NULL") }
                    (box.provider as? any SavePasswordProviding)?.prepareInterface(
                        forSavePasswordRequest: try CDecode.savePasswordRequest(save.pointee), context: ctx)
                }
            }
        }
        if P.self is any GeneratePasswordProviding.Type {
            table.prepare_interface_for_generate_password = { context, request, generate in
                ProviderBox.with(context, request) { box, ctx in
                    guard let generate else { throw ABIDecodingError("request: NULL") }
                    (box.provider as? any GeneratePasswordProviding)?.prepareInterface(
                        forGeneratePasswordRequest: try CDecode.generatePasswordRequest(generate.pointee), context: ctx)
                }
            }
        }
        if P.self is any CredentialUpdateProviding.Type {
            table.report_credential_update = { context, request, update in
                ProviderBox.with(context, request) { box, ctx in
                    guard let update else { throw ABIDecodingError("request: NULL") }
                    (box.provider as? any CredentialUpdateProviding)?.report(try CDecode.credentialUpdate(update.pointee), context: ctx)
                }
            }
        }
        if P.self is any TextToInsertProviding.Type {
            table.prepare_interface_for_text_to_insert = { context, request in
                ProviderBox.with(context, request) { box, ctx in
                    (box.provider as? any TextToInsertProviding)?.prepareInterfaceForUserChoosingTextToInsert(context: ctx)
                }
            }
        }
        return table
    }
}

/// The provider instance and its host, reached through the table's context pointer.
final class ProviderBox: Sendable {
    let provider: any CredentialProvider
    let host: ProviderHost

    init(provider: any CredentialProvider, host: ProviderHost) {
        self.provider = provider
        self.host = host
    }

    /// Runs `body` for request `request`; a request the SDK cannot decode is cancelled as failed.
    static func with(
        _ context: UnsafeMutableRawPointer?, _ request: UInt64, _ body: (ProviderBox, ExtensionContext) throws -> Void
    ) {
        guard let context else { return }
        let box = Unmanaged<ProviderBox>.fromOpaque(context).takeUnretainedValue()
        let extensionContext = ExtensionContext(requestID: request, host: box.host)
        do {
            try body(box, extensionContext)
        } catch {
            box.host.log(.error, "could not read the host's request: \(error)")
            extensionContext.cancelRequest(withError: ExtensionError(.failed, failureReason: "the provider could not read the request"))
        }
    }
}
