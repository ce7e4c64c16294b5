import AutofillCore
import CAutofillProvider
import Foundation
import Glibc
import Synchronization
import Testing

/// A Swift provider (the Vault, built with AutofillProviderKit) in a host built against the earlier
/// ABI 1 header, whose `af_host_services` ends at `ui_message`: the SDK loads, and never reads or
/// calls the services appended since (they are past the host's `size`).
struct ProviderKitCompatibilityTests {
    static let poisonedCalls = Atomic<Int>(0)
    static let logged = Mutex<[String]>([])

    @Test func aSwiftProviderLoadsInAnEarlierHostAndNeverReachesPastItsTable() throws {
        let folder = try TemporaryFolder()
        let bundle = try TestPlugins.copyOfSample("VaultProvider", into: folder.path)
        let handle = try #require(dlopen("\(bundle)/libVaultProvider.so", RTLD_NOW | RTLD_LOCAL))
        let entry = unsafeBitCast(try #require(dlsym(handle, "vault_provider_entry")), to: af_entry_fn.self)

        // An earlier host's table: its size ends before the appended services, whose slots (memory
        // the earlier host never wrote) hold functions that count calls.
        let host = UnsafeMutablePointer<af_host_services>.allocate(capacity: 1)  // lives as long as the process, as the ABI says
        host.initialize(to: af_host_services())
        host.pointee.abi_version = AF_ABI_VERSION
        host.pointee.size = UInt32(MemoryLayout<af_host_services>.offset(of: \af_host_services.complete_save_password)!)
        host.pointee.log = { _, message, length in
            let text = String(decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self)
            ProviderKitCompatibilityTests.logged.withLock { $0.append(text) }
        }
        host.pointee.get_setting = { _, _, _, _, _ in AF_STATUS_NOT_FOUND }
        host.pointee.store_get_state = { _ in AF_STATUS_STORE_DISABLED }
        host.pointee.cancel_request = { _, _, _, _ in AF_OK }
        host.pointee.complete_save_password = { _ in ProviderKitCompatibilityTests.poisonedCalls.add(1, ordering: .relaxed); return AF_OK }
        host.pointee.complete_generated_password = { _, _, _ in
            ProviderKitCompatibilityTests.poisonedCalls.add(1, ordering: .relaxed)
            return AF_OK
        }
        host.pointee.complete_credential_update = { _ in ProviderKitCompatibilityTests.poisonedCalls.add(1, ordering: .relaxed); return AF_OK }

        let provider = try #require(entry(AF_ABI_VERSION, host), "the SDK refused an earlier host: \(Self.logged.withLock { $0 })")
        let generate = try #require(provider.pointee.prepare_interface_for_generate_password)
        var request = af_generate_password_request()
        request.size = UInt32(MemoryLayout<af_generate_password_request>.size)
        request.service = af_service_identifier(identifier: af_str(data: nil, length: 0), type: Int32(AF_SERVICE_DOMAIN), reserved: 0)
        generate(provider.pointee.context, 1, &request)
        #expect(Self.poisonedCalls.load(ordering: .relaxed) == 0, "the SDK called a service past the host's table")
    }
}
